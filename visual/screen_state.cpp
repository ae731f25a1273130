// visual/screen_state.cpp: the frame's record, a JSON object nested by key.
#include "visual/screen_state.h"

#include <nlohmann/json.hpp>

namespace lab::visual {

namespace {
nlohmann::json g_state = nlohmann::json::object();

nlohmann::json& at(const std::string& key) {
  std::string ptr = "/" + key;
  for (char& c : ptr)
    if (c == '.') c = '/';
  return g_state[nlohmann::json::json_pointer(ptr)];
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
