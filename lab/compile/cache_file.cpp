#include "lab/compile/cache_file.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace lab::compile {
namespace fs = std::filesystem;

uint64_t fnv1a(std::string_view s, uint64_t h) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

void write_cache_file(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  fs::path tmp = path;
  tmp += fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush()) {
      out.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

std::optional<std::string> read_cache_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

const std::string& build_identity() {
  static const std::string id = [] {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return std::string("unknown build");
    const auto size = fs::file_size(exe, ec);
    const auto when = fs::last_write_time(exe, ec);
    return fmt::format("{} {} {}", exe.string(), ec ? 0 : size,
                       ec ? 0 : std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count());
  }();
  return id;
}

}  // namespace lab::compile
