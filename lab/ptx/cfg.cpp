// lab/ptx/cfg.cpp: basic blocks and immediate post-dominators.
//
// Post-dominators are dominators of the reversed graph rooted at a virtual
// exit node; we use the iterative algorithm of Cooper, Harvey and Kennedy,
// "A Simple, Fast Dominance Algorithm" (2001), which is linear in practice.
#include "lab/ptx/cfg.h"

#include <algorithm>

namespace lab::ptx {

std::vector<BasicBlock> basic_blocks(const Kernel& k) {
  const size_t n = k.code.size();
  std::vector<uint8_t> leader(n + 1, 0);
  if (n) leader[0] = 1;
  for (size_t i = 0; i < n; ++i) {
    const Instr& in = k.code[i];
    if (in.op == Op::Bra || in.op == Op::Ret || in.op == Op::Exit) {
      leader[i + 1] = 1;
      if (in.op == Op::Bra && in.target >= 0 && static_cast<size_t>(in.target) <= n) leader[in.target] = 1;
    }
  }
  std::vector<BasicBlock> blocks;
  std::vector<uint32_t> block_of(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    if (leader[i]) blocks.push_back(BasicBlock{static_cast<uint32_t>(i), static_cast<uint32_t>(i), {}});
    blocks.back().end = static_cast<uint32_t>(i + 1);
    block_of[i] = static_cast<uint32_t>(blocks.size() - 1);
  }
  const uint32_t exit = static_cast<uint32_t>(blocks.size());
  block_of[n] = exit;
  for (BasicBlock& b : blocks) {
    const Instr& last = k.code[b.end - 1];
    bool guarded = last.guard != kNoReg;
    auto add = [&](uint32_t s) {
      if (std::find(b.succ.begin(), b.succ.end(), s) == b.succ.end()) b.succ.push_back(s);
    };
    if (last.op == Op::Bra) {
      uint32_t t = (last.target >= 0 && static_cast<size_t>(last.target) <= n) ? block_of[last.target] : exit;
      add(t);
      if (guarded) add(block_of[b.end]);
    } else if (last.op == Op::Ret || last.op == Op::Exit) {
      add(exit);
      if (guarded) add(block_of[b.end]);
    } else {
      add(block_of[b.end]);  // falls through (into exit after the last instruction)
    }
  }
  return blocks;
}

std::vector<int32_t> ipdom_targets(const Kernel& k) {
  const size_t n = k.code.size();
  std::vector<int32_t> out(n, -1);
  std::vector<BasicBlock> blocks = basic_blocks(k);
  const uint32_t nb = static_cast<uint32_t>(blocks.size());
  const uint32_t exit = nb;  // virtual exit node

  // Predecessors in the reversed graph are successors in the CFG.
  std::vector<std::vector<uint32_t>> rpred(nb + 1);  // reversed-graph preds = CFG succs
  std::vector<std::vector<uint32_t>> rsucc(nb + 1);  // reversed-graph succs = CFG preds
  for (uint32_t b = 0; b < nb; ++b)
    for (uint32_t s : blocks[b].succ) {
      rpred[b].push_back(s);
      rsucc[s].push_back(b);
    }
  // Blocks that cannot reach the exit (infinite loops) get an edge to it, so
  // every block has a post-dominator.
  std::vector<uint8_t> reaches(nb + 1, 0);
  std::vector<uint32_t> stack{exit};
  reaches[exit] = 1;
  while (!stack.empty()) {
    uint32_t v = stack.back();
    stack.pop_back();
    for (uint32_t p : rsucc[v])
      if (!reaches[p]) { reaches[p] = 1; stack.push_back(p); }
  }
  for (uint32_t b = 0; b < nb; ++b)
    if (!reaches[b]) {
      rpred[b].push_back(exit);
      rsucc[exit].push_back(b);
    }

  // Reverse postorder of the reversed graph from exit (iterative DFS).
  std::vector<uint32_t> order;  // postorder
  std::vector<uint8_t> seen(nb + 1, 0);
  std::vector<std::pair<uint32_t, size_t>> dfs{{exit, 0}};
  seen[exit] = 1;
  while (!dfs.empty()) {
    auto& [v, i] = dfs.back();
    if (i < rsucc[v].size()) {
      uint32_t w = rsucc[v][i++];
      if (!seen[w]) { seen[w] = 1; dfs.push_back({w, 0}); }
    } else {
      order.push_back(v);
      dfs.pop_back();
    }
  }
  std::vector<uint32_t> po_num(nb + 1, 0);
  for (uint32_t i = 0; i < order.size(); ++i) po_num[order[i]] = i;
  constexpr uint32_t kUndef = 0xffffffffu;
  std::vector<uint32_t> ipdom(nb + 1, kUndef);
  ipdom[exit] = exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (po_num[a] < po_num[b]) a = ipdom[a];
      while (po_num[b] < po_num[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = order.size(); i-- > 0;) {
      uint32_t v = order[i];
      if (v == exit) continue;
      uint32_t nd = kUndef;
      for (uint32_t p : rpred[v]) {
        if (ipdom[p] == kUndef) continue;
        nd = nd == kUndef ? p : intersect(p, nd);
      }
      if (nd != ipdom[v]) { ipdom[v] = nd; changed = true; }
    }
  }
  for (uint32_t b = 0; b < nb; ++b) {
    const Instr& last = k.code[blocks[b].end - 1];
    if (last.op != Op::Bra) continue;
    uint32_t d = ipdom[b];
    out[blocks[b].end - 1] = (d == kUndef || d == exit) ? static_cast<int32_t>(n) : static_cast<int32_t>(blocks[d].first);
  }
  return out;
}

}  // namespace lab::ptx
