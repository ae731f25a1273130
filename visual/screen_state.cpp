// visual/screen_state.cpp: the frame's record, a JSON object nested by key.
#include "visual/screen_state.h"

#include <nlohmann/json.hpp>

namespace lab::visual {

namespace {
nlohmann::json g_state = nlohmann::json::object();

// The member the dotted key names, made on the way (objects only: a key
// segment such as "12" or "01" is a name, never an array index).
nlohmann::json& at(const std::string& key) {
  nlohmann::json* cur = &g_state;
  size_t start = 0;
  while (true) {
    if (!cur->is_object()) *cur = nlohmann::json::object();
    size_t dot = key.find('.', start);
    cur = &(*cur)[key.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
    if (dot == std::string::npos) return *cur;
    start = dot + 1;
  }
}
}  // namespace

void begin_frame_state() { g_state = nlohmann::json::object(); }
void shown(const std::string& key, double value) { at(key) = value; }
void shown(const std::string& key, const std::string& text) { at(key) = text; }
void shown(const std::string& key, const char* text) { at(key) = std::string(text ? text : ""); }
void shown(const std::string& key, bool value) { at(key) = value; }

void shown_line(const std::string& key, uint64_t warp_insts, double sectors_per_request, uint64_t conflicts) {
  nlohmann::json& j = at(key);
  j["instructions"] = warp_insts;
  if (sectors_per_request >= 0) j["sectors_per_request"] = sectors_per_request;
  j["bank_conflicts"] = conflicts;
}

std::string frame_state_json() { return g_state.dump(2); }

}  // namespace lab::visual
