// tests/imgui_harness.h: ImGui with no window and no renderer, for the view
// tests: a context, a display size and built fonts (NewFrame/Render work),
// and a count of what the views drew, read from the draw lists.
#pragma once

#include <imgui.h>

#include "visual/theme.h"

namespace lab::visual::test {

struct ImGuiNull {
  ImGuiNull() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1600, 900);
    io.IniFilename = nullptr;
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;  // large draw lists, as the GL3 backend allows
    unsigned char* px;
    int w, h;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
    apply_theme(false);
  }
  ~ImGuiNull() { ImGui::DestroyContext(); }
};

// Filled rectangles of exactly `color` over all windows' draw lists. A filled
// rect is two triangles: 4 vertices of one colour.
inline int count_rects(ImU32 color) {
  ImDrawData* dd = ImGui::GetDrawData();
  int n = 0;
  for (int l = 0; l < dd->CmdListsCount; ++l) {
    const ImDrawList* dl = dd->CmdLists[l];
    for (int i = 0; i + 3 < dl->VtxBuffer.Size;) {
      bool same = dl->VtxBuffer[i].col == color && dl->VtxBuffer[i + 1].col == color &&
                  dl->VtxBuffer[i + 2].col == color && dl->VtxBuffer[i + 3].col == color;
      n += same;
      i += same ? 4 : 1;
    }
  }
  return n;
}

}  // namespace lab::visual::test
