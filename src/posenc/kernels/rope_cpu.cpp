// Fused CPU RoPE kernel, compiled on first use by posenc/kernels/cpu.py (shipped as package data).
//
// One pass over memory: each row x[b, h, t, :] is read once and written once,
//
//     (x1', x2') = (x1 cos - s x2 sin, x2 cos + s x1 sin),   s = +1 forward, -1 backward (rotation by -theta)
//
// with float32 math for float32 / bfloat16 / float16 storage. Rows are split over OpenMP threads; the inner loops over
// the R/2 pairs are plain loops marked `omp simd` so the compiler vectorises them for the ISA chosen at build time.
// The code includes no torch header (it is called through ctypes with data pointers and element strides), so it
// builds in about a second.

#include <cstdint>
#include <cstring>
#include <algorithm>
#include <cmath>
#include <omp.h>

namespace {

// ---- storage <-> float32 -----------------------------------------------------------------------------------
struct F32 {
  using T = float;
  static inline float load(T v) { return v; }
  static inline T store(float f) { return f; }
};

struct BF16 {  // bfloat16: the top 16 bits of a float32; store rounds to nearest even, NaN stays NaN
  using T = uint16_t;
  static inline float load(T v) {
    uint32_t u = static_cast<uint32_t>(v) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  static inline T store(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    return static_cast<T>(f != f ? 0x7FC0u : rounded);
  }
};

struct F16 {  // IEEE binary16, converted with integer and float32 operations that compilers vectorise
  using T = uint16_t;
  static inline float load(T v) {
    const uint32_t h = v, em = h & 0x7FFFu, sign = (h & 0x8000u) << 16;
    // subnormal (exponent 0): m * 2^-24, exact; normal: rebias the exponent by 127 - 15 = 112;
    // Inf / NaN (exponent 31): float exponent 255, mantissa kept
    const float sub = static_cast<float>(em) * 0x1p-24f;
    uint32_t sub_bits;
    std::memcpy(&sub_bits, &sub, 4);
    const uint32_t normal = (em << 13) + (112u << 23);
    const uint32_t special = (em << 13) | 0x7F800000u;
    const uint32_t is_sub = 0u - static_cast<uint32_t>(em < 0x400u);  // all ones or zero: branch-free selects
    const uint32_t is_special = 0u - static_cast<uint32_t>(em >= 0x7C00u);
    const uint32_t wide = (special & is_special) | (normal & ~is_special);
    const uint32_t u = ((sub_bits & is_sub) | (wide & ~is_sub)) | sign;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  static inline T store(float f) {  // round to nearest even, overflow to Inf, NaN stays NaN
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu;
    // |f| < 2^-14 (half subnormal): adding 0.5 rounds |f| to a multiple of 2^-24, the float ulp in [0.5, 1)
    float magnitude;
    std::memcpy(&magnitude, &a, 4);
    const float shifted = magnitude + 0.5f;
    uint32_t shifted_bits;
    std::memcpy(&shifted_bits, &shifted, 4);
    const uint32_t subnormal = shifted_bits - 0x3F000000u;
    // normal: drop 13 mantissa bits with round to nearest even (a carry moves into the exponent), rebias by 112
    const uint32_t normal = ((a + 0xFFFu + ((a >> 13) & 1u)) >> 13) - (112u << 10);
    const uint32_t is_sub = 0u - static_cast<uint32_t>(a < 0x38800000u);
    const uint32_t is_inf = 0u - static_cast<uint32_t>(a >= 0x477FF000u);  // >= 65520 rounds past 65504
    const uint32_t is_nan = 0u - static_cast<uint32_t>(a > 0x7F800000u);  // NaN -> quiet NaN
    uint32_t out = (subnormal & is_sub) | (normal & ~is_sub);
    out = (0x7C00u & is_inf) | (out & ~is_inf);
    out = (0x7E00u & is_nan) | (out & ~is_nan);
    return static_cast<T>(out | sign);
  }
};

struct Layout {
  int64_t B, H, T, D, R2;        // batch, heads, tokens, head_dim, rotary pairs (R/2)
  int64_t xsb, xsh, xst;         // input strides in elements (last dim contiguous)
  int64_t osb, osh, ost;         // output strides in elements
  int64_t csb, cst;              // table strides in floats (csb = 0: one table for every batch row)
};

// N rows x[b, h .. h + N - 1, t, :] of one token (N = 1, 2 or 4; the rows are xsh and osh elements apart), rotated
// in one loop: each table value is read once for all N rows (q has 32 heads sharing one table). The loop over the
// rows has N fixed at compile time, so it is unrolled into the pair loop. R2C > 0 fixes the number of pairs at
// compile time (fully unrolled, no remainder loop); R2C == 0 takes it from R2. In place (x == o) every element is
// read before it is written, in the same iteration.
template <class S, int64_t R2C, int N>
inline void rotate_rows(const typename S::T* x, typename S::T* o, int64_t xsh, int64_t osh,
                        const float* __restrict__ c, const float* __restrict__ s, int64_t R2_, int64_t D,
                        int interleaved, float sign, int copy_tail) {
  using T = typename S::T;
  const int64_t R2 = R2C > 0 ? R2C : R2_;
  if (interleaved) {
#pragma omp simd
    for (int64_t i = 0; i < R2; ++i) {
      const float ci = c[i], si = sign * s[i];
      float x1[N], x2[N];
      for (int k = 0; k < N; ++k) {
        x1[k] = S::load(x[k * xsh + 2 * i]);
        x2[k] = S::load(x[k * xsh + 2 * i + 1]);
      }
      for (int k = 0; k < N; ++k) {
        o[k * osh + 2 * i] = S::store(x1[k] * ci - x2[k] * si);
        o[k * osh + 2 * i + 1] = S::store(x2[k] * ci + x1[k] * si);
      }
    }
  } else {
#pragma omp simd
    for (int64_t i = 0; i < R2; ++i) {
      const float ci = c[i], si = sign * s[i];
      float x1[N], x2[N];
      for (int k = 0; k < N; ++k) {
        x1[k] = S::load(x[k * xsh + i]);
        x2[k] = S::load(x[k * xsh + i + R2]);
      }
      for (int k = 0; k < N; ++k) {
        o[k * osh + i] = S::store(x1[k] * ci - x2[k] * si);
        o[k * osh + i + R2] = S::store(x2[k] * ci + x1[k] * si);
      }
    }
  }
  if (copy_tail && 2 * R2 < D) {
    for (int k = 0; k < N; ++k) std::memcpy(o + k * osh + 2 * R2, x + k * xsh + 2 * R2, sizeof(T) * (D - 2 * R2));
  }
}

// Work units are (b, group of up to 4 heads, t): the heads of a group are rotated in one loop at each token, so
// each table row is read once per group (q has 32 heads sharing one table). Measured here: groups of 4 heads in one
// loop beat pairs by 5-20% and single heads by 15-30%; tiles of tokens, a skewed order and software prefetch were
// slower, and so were 4 heads rotated one after another (their rows, megabytes apart, alias in the 4 KiB
// store-forwarding check).
// Each thread takes one contiguous range of units; (b, group, t) is stepped, not divided.
// An empty problem (B, H or T zero) has no units; it must return before the divisions by HB and T below.
template <class S, int64_t R2C>
void launch_rows(const typename S::T* x, typename S::T* out, const float* cs, const float* sn, const Layout& L,
                 int interleaved, float sign, int copy_tail, int n_threads) {
  using T = typename S::T;
  if (L.B <= 0 || L.H <= 0 || L.T <= 0) return;
  const int64_t HB = std::min<int64_t>(4, L.H), n_hg = (L.H + HB - 1) / HB;
  const int64_t units = L.B * n_hg * L.T;
  // below ~64 KiB of work a second thread costs more than it saves
  const bool parallel = n_threads > 1 && L.B * L.H * L.T * L.D >= 16384;
#pragma omp parallel num_threads(n_threads) if (parallel)
  {
    const int64_t nt = omp_get_num_threads(), id = omp_get_thread_num();
    const int64_t chunk = (units + nt - 1) / nt;
    const int64_t begin = std::min(id * chunk, units), end = std::min(begin + chunk, units);
    int64_t t = begin % L.T, g = (begin / L.T) % n_hg, b = begin / (L.T * n_hg);
    for (int64_t u = begin; u < end; ++u) {
      const int64_t h = g * HB;
      const float* c = cs + b * L.csb + t * L.cst;
      const float* s = sn + b * L.csb + t * L.cst;
      const T* xa = x + b * L.xsb + h * L.xsh + t * L.xst;
      T* oa = out + b * L.osb + h * L.osh + t * L.ost;
      const int64_t n = std::min(HB, L.H - h);  // heads in this group: 4, or what is left at the end
      if (n == 4) {
        rotate_rows<S, R2C, 4>(xa, oa, L.xsh, L.osh, c, s, L.R2, L.D, interleaved, sign, copy_tail);
      } else {
        int64_t k = 0;
        for (; k + 1 < n; k += 2)
          rotate_rows<S, R2C, 2>(xa + k * L.xsh, oa + k * L.osh, L.xsh, L.osh, c, s, L.R2, L.D, interleaved, sign,
                                 copy_tail);
        if (k < n)
          rotate_rows<S, R2C, 1>(xa + k * L.xsh, oa + k * L.osh, L.xsh, L.osh, c, s, L.R2, L.D, interleaved, sign,
                                 copy_tail);
      }
      if (++t == L.T) {
        t = 0;
        if (++g == n_hg) {
          g = 0;
          ++b;
        }
      }
    }
  }
}

template <class S>
void launch(const void* xv, void* outv, const float* cs, const float* sn, const Layout& L, int interleaved,
            int inverse, int copy_tail, int n_threads) {
  using T = typename S::T;
  const T* x = static_cast<const T*>(xv);
  T* out = static_cast<T*>(outv);
  const float sign = inverse ? -1.0f : 1.0f;
  switch (L.R2) {  // the common head sizes 128, 64 and 32 with full rotary, unrolled
    case 64: launch_rows<S, 64>(x, out, cs, sn, L, interleaved, sign, copy_tail, n_threads); break;
    case 32: launch_rows<S, 32>(x, out, cs, sn, L, interleaved, sign, copy_tail, n_threads); break;
    case 16: launch_rows<S, 16>(x, out, cs, sn, L, interleaved, sign, copy_tail, n_threads); break;
    default: launch_rows<S, 0>(x, out, cs, sn, L, interleaved, sign, copy_tail, n_threads);
  }
}

}  // namespace

extern "C" {

int posenc_rope_has_f16() { return 1; }

// dtype: 0 float32, 1 bfloat16, 2 float16. Returns 0 on success (an empty tensor is a success with nothing
// written), 1 for an unsupported dtype.
int posenc_rope_apply(int dtype, const void* x, void* out, const float* cs, const float* sn, int64_t B, int64_t H,
                      int64_t T, int64_t D, int64_t R2, int64_t xsb, int64_t xsh, int64_t xst, int64_t osb,
                      int64_t osh, int64_t ost, int64_t csb, int64_t cst, int interleaved, int inverse, int copy_tail,
                      int n_threads) {
  const Layout L{B, H, T, D, R2, xsb, xsh, xst, osb, osh, ost, csb, cst};
  if (dtype < 0 || dtype > 2) return 1;
  if (B <= 0 || H <= 0 || T <= 0) return 0;  // nothing to rotate (empty batch, heads or sequence)
  switch (dtype) {
    case 0: launch<F32>(x, out, cs, sn, L, interleaved, inverse, copy_tail, n_threads); return 0;
    case 1: launch<BF16>(x, out, cs, sn, L, interleaved, inverse, copy_tail, n_threads); return 0;
    case 2: launch<F16>(x, out, cs, sn, L, interleaved, inverse, copy_tail, n_threads); return 0;
    default: return 1;
  }
}

}  // extern "C"
