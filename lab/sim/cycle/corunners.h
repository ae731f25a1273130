// lab/sim/cycle/corunners.h: how much of a sampled block's DRAM traffic the
// blocks running beside it on other SMs would have fetched for it.
//
// A sampled-only run (`--sample`, `bench gemm` above 1024^3, the lessons'
// before/after steps) runs the timed blocks and no others, so a tile that a
// block's row-mates on 30 other SMs read at the same moment reaches its L2
// only through its own read: 09_tensor_core_mma at 2048^3 had an L2 hit rate
// of 19% sampled against 89% with every block run. On the GPU the first
// block to read a line fetches it from DRAM and the others hit in L2.
//
// The estimate: a few blocks next to the first timed block (x + 1, x + 2,
// y + 1, y + 2 in the grid) run without timing, and each line the first
// block reads is classed by who else reads it. A line the x + 1 block also
// reads is shared along the row: by every block of the row that the same
// wave holds when x + 2 reads it too (a GEMM's A tile), by two blocks when
// only x + 1 does (a stencil's halo); alike along y. Of the lines read by
// d blocks at once, one read in d goes to DRAM, so the first block's reads
// go to DRAM at the mean of 1/d over its lines: the fraction the sample's
// L2 model fetches (L2Model::set_fetch_fraction).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "lab/sim/cycle/trace.h"
#include "lab/sim/l2_model.h"

namespace lab::sim::cycle {

// The 128-byte lines of the global reads in `trace`, sorted, distinct.
std::vector<uint64_t> read_lines(const BlockTrace& trace);

struct Neighbours {
  std::vector<uint64_t> x1, x2, y1, y2;  // read_lines of blocks x+1, x+2, y+1, y+2 (empty: none)
};

// The blocks the estimate runs, by linear id in a gx x gy (x z) grid: the
// first timed block and its neighbours x + 1, x + 2, y + 1, y + 2 (stepping
// back at the grid's edge; -1 where the grid has none), and how many blocks
// of one wave of `wave` blocks share its row and its column.
struct GridNeighbours {
  int64_t self = -1, x1 = -1, x2 = -1, y1 = -1, y2 = -1;
  uint64_t row_mates = 1, column_mates = 1;
};
GridNeighbours grid_neighbours(uint64_t gx, uint64_t gy, uint64_t block, uint64_t wave);

// The mean over `self`'s lines of 1 / (blocks of one wave reading the line).
// `row_mates`: blocks of one wave in one grid row (min(gridDim.x, wave));
// `column_mates`: in one grid column.
double first_read_fetch_fraction(const std::vector<uint64_t>& self, const Neighbours& n, uint64_t row_mates,
                                 uint64_t column_mates);

// The same mean taken apart per buffer: one mean over all lines mixes a
// buffer every block of a column reads (a bias vector, d in the tens) with
// rows each block reads alone (d = 1), and the sample's L2 misses are
// almost all the latter (the shared lines hit once read). Lesson 8's
// bias+GELU fetched 51% of its misses from DRAM with the one mean: its
// private rows half fetched by "other SMs" (docs/fidelity.md, eleventh
// round). `buffers`: [first line, end line) of each buffer, sorted; a
// buffer the first block does not read gets no range.
std::vector<FetchRange> fetch_fractions_by_buffer(const std::vector<uint64_t>& self, const Neighbours& n,
                                                  uint64_t row_mates, uint64_t column_mates,
                                                  const std::vector<std::pair<uint64_t, uint64_t>>& buffers);

}  // namespace lab::sim::cycle
