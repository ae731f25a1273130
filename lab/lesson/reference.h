// lab/lesson/reference.h: the CPU references exercises are checked against.
//
// Each is a plain float64 loop, written to be obviously right rather than
// fast: the inputs are the exact values the kernel saw (rounded to the
// buffer's type, then widened), so the only difference between the two is
// the kernel's own arithmetic. A lesson names its reference in lesson.toml.
#pragma once

#include <string>
#include <vector>

#include "lab/lesson/size_expr.h"

namespace lab::lesson {

struct ReferenceArgs {
  std::vector<const std::vector<double>*> in;  // "in" and "inout" buffers, in argument order
  std::vector<std::vector<double>*> out;       // "out" and "inout" buffers, in argument order
  std::vector<double> scalars;                 // float scalar arguments, in argument order (integer ones are sizes)
  SizeVars sizes;
};

struct Reference {
  const char* name;
  const char* what;                // one line, for messages and docs
  int inputs, outputs, scalars;    // how many of each it expects (scalars: float ones)
  std::vector<const char*> sizes;  // size variables it reads
  void (*run)(const ReferenceArgs&);
};

const Reference* find_reference(const std::string& name);
std::string known_references();  // "gemm, transpose, ..." for messages

}  // namespace lab::lesson
