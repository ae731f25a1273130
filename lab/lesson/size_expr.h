// lab/lesson/size_expr.h: the little integer expressions a lesson manifest
// uses for launch geometry and buffer sizes, e.g. "cdiv(N, 32)" or "M*K".
//
// Grammar: expr := term (('+'|'-') term)* ; term := unary (('*'|'/'|'%') unary)*
//          unary := '-' unary | primary ; primary := INT | NAME | NAME '(' args ')' | '(' expr ')'
// Functions: cdiv(a,b) (ceiling division), min(a,b), max(a,b). '/' truncates,
// as C does, since geometry is integer arithmetic in the kernels too.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace lab::lesson {

using SizeVars = std::map<std::string, int64_t>;

struct SizeExprError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Evaluates `text` with the variables in `vars`. Throws SizeExprError naming
// the expression and what is wrong (unknown name, division by zero, syntax).
int64_t eval_size(const std::string& text, const SizeVars& vars);

// Checks syntax and that every name is in `names` without evaluating.
// Returns "" when fine, else what is wrong.
std::string validate_size(const std::string& text, const SizeVars& sample);

}  // namespace lab::lesson
