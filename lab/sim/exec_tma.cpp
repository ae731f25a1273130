// lab/sim/exec_tma.cpp: cp.async.bulk.tensor, global -> shared through a
// tensor map (TMA; PTX ISA 9.7.9.25.5.1, tile mode).
//
// The box at coordinates {c0 .. cN-1} (c0 the innermost, contiguous
// dimension) is written to shared memory densely, dimension 0 fastest
// (element (i0 .. iN-1) at dst + (((i4 b3 + i3) b2 + i2) b1 + i1) b0 + i0
// elements), then swizzled on the absolute shared address as the map says
// (matrix_descriptor.h). Elements outside the tensor are zeros (PTX ISA
// 5.5.3.3, "zero fill mode"). The copy completes with complete_tx of the
// whole box's bytes on the mbarrier. The lab copies at issue (as it does
// cp.async.bulk); the cycle model times the copy on the SM's copy engine.
//
// The copy's global reads are counted as one request of its sectors
// (they reach L2 and DRAM like any load) and recorded for the cycle model
// as a copy-engine request (cycle/trace.h TraceMem::bulk).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "lab/sim/exec.h"
#include "lab/sim/exec_memory.h"
#include "lab/sim/matrix_descriptor.h"
#include "lab/sim/tensor_map.h"

namespace lab::sim {

namespace {

void fault_tma(WarpContext& c, const ptx::Instr& in, uint32_t lane, const char* kind, const std::string& why) {
  raise_fault(c, kind,
              fmt::format("'{}' (PTX line {}, thread {} of its warp): {}", ptx::op_name(in.op), in.ptx_line, lane, why),
              lane);
}

// The 128 bytes of the tensor map lane `i` names: a kernel parameter
// (__grid_constant__, by its param-space or generic address) or global memory.
const uint8_t* map_bytes(WarpContext& c, const ptx::Instr& in, uint32_t i) {
  const ptx::Operand& o = in.ops[1];
  const uint64_t reg = o.reg < ptx::kSinkReg ? c.regs[size_t(o.reg) * kWarpSize + i] : 0;
  uint64_t a = reg + uint64_t(o.imm);
  bool param = o.space == ptx::Space::Param;
  if (a - ptx::kParamWindow < ptx::kWindowSize) a -= ptx::kParamWindow, param = true;
  if (param) {
    if (a + kTensorMapBytes > c.L->param_bytes) {
      fault_tma(c, in, i, "out-of-bounds", fmt::format("the tensor map at param offset {} is outside the {} bytes of "
                                                       "kernel parameters", a, c.L->param_bytes));
      return nullptr;
    }
    return c.L->params + a;
  }
  Access g;
  g.bytes = kTensorMapBytes;
  g.where = ptx::Space::Global;
  g.addr[i] = a;
  if (!resolve(c, g, 1u << i, false, 64)) return nullptr;
  return g.host[i];
}

}  // namespace

void exec_tma(const ptx::Instr& in, WarpContext& c) {
  const uint32_t rank = in.shape_m;
  for (uint32_t m = c.mask; m; m &= m - 1) {
    const uint32_t i = uint32_t(std::countr_zero(m));
    const uint8_t* mb = map_bytes(c, in, i);
    if (!mb) return;
    TensorMap map;
    if (!decode_tensor_map(mb, map)) {
      fault_tma(c, in, i, "invalid-operand",
                "the tensor map operand is not a tensor map: build it on the host with cuTensorMapEncodeTiled and pass "
                "it as a `const __grid_constant__ CUtensorMap` kernel parameter");
      return;
    }
    if (map.rank != rank) {
      fault_tma(c, in, i, "invalid-operand",
                fmt::format("the instruction is .{}d but the tensor map has rank {}", rank, map.rank));
      return;
    }
    // Destination: a shared offset, 128-byte aligned, room for the box.
    const ptx::Operand& dop = in.ops[0];
    uint64_t dst = ((dop.reg < ptx::kSinkReg ? c.regs[size_t(dop.reg) * kWarpSize + i] : 0) + uint64_t(dop.imm));
    if (dst - ptx::kSharedWindow < ptx::kWindowSize) dst -= ptx::kSharedWindow;
    dst &= 0xffffffffull;
    const uint64_t box_bytes = map.box_bytes();
    if (dst % 128) {
      fault_tma(c, in, i, "misaligned",
                fmt::format("the shared destination 0x{:x} must be 128-byte aligned (1024 for the 128-byte swizzle "
                            "pattern to start on a row 0)", dst));
      return;
    }
    if (dst + box_bytes > c.B->shared_bytes) {
      fault_tma(c, in, i, "out-of-bounds",
                fmt::format("the {}-byte box at shared offset 0x{:x} runs past the block's {} bytes of shared memory",
                            box_bytes, dst, c.B->shared_bytes));
      return;
    }
    int64_t coord[5] = {};
    const ptx::Operand& co = in.ops[2];
    for (uint32_t d = 0; d < rank; ++d) {
      const uint32_t slot = c.L->kernel->vec_slots[co.reg + d];
      coord[d] = slot < ptx::kSinkReg ? int64_t(int32_t(uint32_t(c.regs[size_t(slot) * kWarpSize + i]))) : 0;
    }
    // Walk the box: n[d] elements along dimension d (element strides), runs
    // of dimension 0 at a time.
    uint32_t n[5] = {1, 1, 1, 1, 1};
    for (uint32_t d = 0; d < rank; ++d) n[d] = (map.box[d] + map.element_strides[d] - 1) / map.element_strides[d];
    const uint32_t es = map.elem_bytes;
    uint8_t* smem = c.B->shared.data();
    std::vector<uint64_t> sectors;
    uint64_t bytes_read = 0;
    uint32_t idx[5] = {};
    const uint64_t rows = box_bytes / (uint64_t(n[0]) * es);
    for (uint64_t row = 0; row < rows; ++row) {
      uint64_t rem = row;
      bool row_in = true;
      uint64_t base = map.address;
      for (uint32_t d = 1; d < rank; ++d) {
        idx[d] = uint32_t(rem % n[d]);
        rem /= n[d];
        const int64_t g = coord[d] + int64_t(idx[d]) * map.element_strides[d];
        if (g < 0 || uint64_t(g) >= map.dims[d]) row_in = false;
        else base += uint64_t(g) * map.strides[d];
      }
      const uint64_t row_dst = dst + row * n[0] * es;
      // In-bounds elements of dimension 0: [lo, hi).
      int64_t lo = std::max<int64_t>(0, -coord[0]);
      int64_t hi = std::min<int64_t>(n[0], int64_t(map.dims[0]) - coord[0]);
      if (!row_in || hi <= lo) lo = hi = 0;
      const uint8_t* src = nullptr;  // the row's in-bounds run, from element lo
      if (hi > lo) {
        Access g;
        g.where = ptx::Space::Global;
        g.bytes = uint32_t((hi - lo) * es);
        g.addr[i] = base + uint64_t(coord[0] + lo) * es;
        if (!resolve(c, g, 1u << i, false, 1)) return;
        src = g.host[i];
        for (uint64_t s = g.addr[i] / 32; s <= (g.addr[i] + g.bytes - 1) / 32; ++s) sectors.push_back(s);
        bytes_read += g.bytes;
      }
      // The row's 16-byte chunks (a row is a whole number of them, and the
      // swizzle moves whole chunks): one inside [lo, hi) is copied at once,
      // one that crosses the tensor's edge element by element, zeros outside.
      const uint32_t per = 16 / es;
      for (uint32_t ch = 0; ch < n[0] / per; ++ch) {
        const int64_t e0 = int64_t(ch) * per;
        uint8_t* out = smem + swizzle_address(uint32_t(row_dst + uint64_t(ch) * 16), map.swizzle_bytes);
        if (e0 >= lo && e0 + per <= hi) {
          std::memcpy(out, src + (e0 - lo) * es, 16);
          continue;
        }
        for (uint32_t j = 0; j < per; ++j) {
          const int64_t e = e0 + j;
          if (e >= lo && e < hi) std::memcpy(out + j * es, src + (e - lo) * es, es);
          else std::memset(out + j * es, 0, es);
        }
      }
    }
    // The copy's reads: one request of its sectors.
    std::sort(sectors.begin(), sectors.end());
    sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
    count_bulk_request(c, sectors, bytes_read, uint32_t(box_bytes));
    if (!mbarrier_complete_tx(in, c, in.ops[3], i, uint32_t(box_bytes))) return;
  }
}

}  // namespace lab::sim
