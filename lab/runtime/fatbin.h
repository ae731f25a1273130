// lab/runtime/fatbin.h: the PTX inside a program's fat binary.
//
// nvcc embeds each translation unit's device code in a fat binary and, at
// start-up, hands a pointer to its wrapper to __cudaRegisterFatBinary. The
// lab's runtime reads the PTX entries out of it (gpulab run builds with
// -gencode arch=compute_XX,code=compute_XX and -Xfatbin=-compress=false, so
// there is exactly the PTX, uncompressed).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace lab::runtime {

struct FatbinError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FatbinPtx {
  unsigned arch = 0;  // the virtual architecture's number: 90 for compute_90
  std::string ptx;
};

// `wrapper` is the pointer nvcc passes to __cudaRegisterFatBinary
// (__fatBinC_Wrapper_t, fatbinary_section.h). Returns every PTX entry; SASS
// (ELF) entries are skipped. Throws FatbinError for a layout it does not know
// or a compressed entry, saying how to rebuild.
std::vector<FatbinPtx> fatbin_ptx(const void* wrapper);

// The same for the fat binary itself (the bytes the wrapper's `data` points
// at), for tests that extract a .nv_fatbin section.
std::vector<FatbinPtx> fatbin_ptx_from_data(const void* data, size_t max_bytes);

}  // namespace lab::runtime
