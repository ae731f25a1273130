// tests/test_bench_sass.cpp: `gpulab validate --sass` without the tool:
// reading shared loads back from nvdisasm's listing (lab/compile/sass.h,
// the listing's shapes as nvdisasm 13 prints them for sm_80 and sm_90a
// cubins), and the verdict per line (lab/bench/sass_widths.h).
#include <doctest/doctest.h>

#include "lab/bench/sass_widths.h"
#include "lab/compile/sass.h"

using lab::compile::parse_sass_shared_loads;

TEST_CASE("nvdisasm's listing: each LDS of the kernel with its width and source line") {
  const char* listing = R"(
	.section	.text.other,"ax",@progbits
	//## File "/x/k.cu", line 3
        /*0010*/                   LDS.128 R4, [R2] ;
	.section	.text.attention,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=56"
	//## File "/x/k.cu", line 47
        /*1b80*/                   LDS R12, [R47] ;
        /*1b90*/              @P0 LDS.128 R20, [R49] ;
        /*1ba0*/              @!PT LDS RZ, [RZ] ;
	//## File "/x/k.cu", line 48
        /*1bb0*/                   LDS.U16 R3, [R5+0x2] ;
        /*1bc0*/                   LDS.64 R6, [R8] ;
        /*1bd0*/                   LDSM.16.M88.4 R8, [R9] ;
        /*1be0*/                   LDGSTS.E.BYPASS.128 [R2], desc[UR4][R4.64] ;
        /*1bf0*/                   STS [R2], R3 ;
)";
  const auto loads = parse_sass_shared_loads(listing, "attention");
  REQUIRE(loads.size() == 4);  // not the other kernel's, not @!PT padding, not LDSM or LDGSTS or STS
  CHECK(loads[0].line == 47);
  CHECK(loads[0].bytes == 4);
  CHECK(loads[1].bytes == 16);  // guarded: still an instruction ptxas emitted
  CHECK(loads[2].line == 48);
  CHECK(loads[2].bytes == 2);
  CHECK(loads[3].bytes == 8);
  CHECK(loads[3].file == "/x/k.cu");
  CHECK(parse_sass_shared_loads(listing, "other").size() == 1);
  CHECK(parse_sass_shared_loads(listing, "absent").empty());
}

TEST_CASE("a line agrees when the model issues the widths the SASS has, whatever the counts") {
  lab::bench::SassLineWidths same{47, {{4, 16}}, {{4, 16}}, {{4, 32}}};  // ptxas unrolled further: counts differ
  CHECK(same.agrees());
  lab::bench::SassLineWidths merged_wrongly{48, {{4, 16}}, {{16, 4}}, {{4, 16}}};
  CHECK_FALSE(merged_wrongly.agrees());
  lab::bench::SassLineWidths missing{41, {}, {}, {{4, 24}}};
  CHECK_FALSE(missing.agrees());
  lab::bench::SassWidthsReport r;
  r.file = "k.cu", r.kernel = "k", r.sm_arch = "sm_90a", r.gpu = "H100";
  r.lines = {same, merged_wrongly};
  CHECK_FALSE(r.agrees());
  const std::string text = lab::bench::format_sass_widths(r);
  CHECK(text.find("4 x 16 B") != std::string::npos);
  CHECK(text.find("DIFFER") != std::string::npos);
  r.lines = {};
  CHECK(r.agrees());  // nothing to compare
  CHECK(lab::bench::format_sass_widths(r).find("nothing to compare") != std::string::npos);
}
