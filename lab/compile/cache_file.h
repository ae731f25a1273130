// lab/compile/cache_file.h: what the lab's on-disk caches share (the PTX
// cache in nvrtc.cpp, the lessons' baseline figures in
// lab/lesson/baseline_cache.cpp): a key hash, a write that another process
// never sees half done, and the identity of the running build, which keys
// anything the simulator computed (a rebuilt model may compute it otherwise).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace lab::compile {

// FNV-1a, 64 bits: a cache key of everything that changes the cached value.
uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull);

// Writes `text` to `path` through a temporary file in the same folder and a
// rename, so a reader sees the old file or the new one. Creates the folder.
// Best effort: a cache that cannot be written is only slower (no throw).
void write_cache_file(const std::filesystem::path& path, const std::string& text);

// The file's text, or nothing when it cannot be read.
std::optional<std::string> read_cache_file(const std::filesystem::path& path);

// This executable's path, size and modification time: changes with every
// build, so results of the model cached under it are never read by another.
const std::string& build_identity();

}  // namespace lab::compile
