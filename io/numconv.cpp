// numconv.cpp - io/numconv.h over fast_float and {fmt}'s Dragonbox (both header-only here:
// FMT_HEADER_ONLY, no exceptions, no run-time library).
#define FMT_HEADER_ONLY 1
// Dragonbox's internal checks compiled out, as in fmt's NDEBUG build (the failing branch would
// call std::terminate, from libstdc++).
#define FMT_ASSERT(condition, message) ((void)(condition))
#include "numconv.h"

#include <fast_float/fast_float.h>
#include <fmt/format.h>

namespace {

// fast_float takes '-' but not '+' (as std::from_chars); a '+' is taken here, and a second
// sign after it is refused (strtod refuses "+-1").
template <typename T> int parse(const char *s, size_t len, T *out)
{
    const char *p = s, *end = s + len;
    if (p < end && *p == '+') {
        p++;
        if (p < end && (*p == '-' || *p == '+')) return -1;
    }
    if (p == end) return -1;
    T v;
    fast_float::from_chars_result r = fast_float::from_chars(p, end, v);
    // out of range is not an error: the value is then +-inf, 0 or a denormal, as from strtod
    if (r.ptr != end || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) return -1;
    *out = v;
    return 0;
}

} // namespace

extern "C" int gs_numconv_parse_f64(const char *s, size_t len, double *out) { return parse(s, len, out); }

extern "C" int gs_numconv_parse_f32(const char *s, size_t len, float *out) { return parse(s, len, out); }

extern "C" gs_decimal gs_numconv_shortest_f64(double x)
{
    auto d = fmt::detail::dragonbox::to_decimal(x);
    return {d.significand, d.exponent};
}

extern "C" gs_decimal gs_numconv_shortest_f32(float x)
{
    auto d = fmt::detail::dragonbox::to_decimal(x);
    return {d.significand, d.exponent};
}
