// lab/lesson/shipped.cpp: judge an exercise by the lab's own definition of it.
#include "lab/lesson/shipped.h"

#include <toml++/toml.h>

namespace lab::lesson {

namespace {

const toml::table* exercise_table(const toml::table& root, const std::string& id) {
  const toml::array* arr = root["exercises"].as_array();
  if (!arr) return nullptr;
  for (const auto& n : *arr)
    if (const toml::table* t = n.as_table(); t && (*t)["id"].value<std::string>() == id) return t;
  return nullptr;
}

}  // namespace

std::optional<Exercise> shipped_exercise_if_edited(const Lesson& lesson, const Exercise& ex) {
  const ShippedManifest* m = nullptr;
  for (const auto& s : shipped_manifests())
    if (lesson.id == s.id) m = &s;
  if (!m) return std::nullopt;
  toml::table shipped, own;
  try {
    shipped = toml::parse(std::string_view(m->toml), "(the lab's own " + lesson.id + "/lesson.toml)");
    own = toml::parse_file(lesson.manifest_path);
  } catch (const toml::parse_error&) {
    return std::nullopt;  // the folder's own manifest did not parse: load_lesson has said so already
  }
  const toml::table* theirs = exercise_table(shipped, ex.id);
  if (!theirs) return std::nullopt;  // an exercise the lab does not ship: the folder's own
  const toml::table* mine = exercise_table(own, ex.id);
  if (mine && *mine == *theirs) return std::nullopt;
  Lesson S = load_lesson_text(lesson.dir, m->toml);
  const Exercise* e = S.find_exercise(ex.id);
  if (!e) return std::nullopt;
  return *e;
}

}  // namespace lab::lesson
