// visual/screen_state.h: what a frame shows, as data (`--state FILE.json`).
//
// Views record the numbers and names they print while they draw, under
// dotted keys ("banks.wavefronts", "coalescing.ideal_sectors"); the app
// writes the last frame's record beside its screenshot, so tests assert what
// a person sees rather than what the model holds. Only the UI thread calls
// these; recording is a map insert per printed number.
#pragma once

#include <cstdint>
#include <string>

namespace lab::visual {

void begin_frame_state();  // clears the record (start of each frame)
void shown(const std::string& key, double value);
void shown(const std::string& key, const std::string& text);
void shown(const std::string& key, bool value);
void shown(const std::string& key, const char* text);
// A source or PTX row's columns.
void shown_line(const std::string& key, uint64_t warp_insts, double sectors_per_request, uint64_t conflicts);
// The record as one JSON object, nested by the keys' dots.
std::string frame_state_json();

}  // namespace lab::visual
