// visual/screenshot.cpp: the framebuffer as a PNG (glReadPixels + stb_image_write).
// libstb (Debian's libstb-dev, added by `pkg-config imgui`) carries the
// implementation, so only the declarations are included here.
#include <GL/gl.h>
#include <stb_image_write.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "visual/app.h"

namespace lab::visual {

bool write_framebuffer_png(const std::string& path, int width, int height) {
  std::vector<unsigned char> px(size_t(width) * height * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, px.data());
  if (glGetError() != GL_NO_ERROR) return false;
  // OpenGL's rows run bottom-up; PNG's top-down.
  stbi_flip_vertically_on_write(1);
  return stbi_write_png(path.c_str(), width, height, 3, px.data(), width * 3) != 0;
}

std::string next_picture_name(const std::string& dir) {
  for (int i = 1; i <= 999; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "gpulab-picture-%03d.png", i);
    const std::filesystem::path p = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (!std::filesystem::exists(p, ec) && !ec) return p.string();
  }
  return "";
}

}  // namespace lab::visual
