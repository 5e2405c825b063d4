/// \file
/// toChannelsLast (ByteTranspose.h): byte matrix transposes in 8 x 8 blocks
/// (three rounds of SSE2 unpacks, the baseline x86-64 ISA), the edges element by element.
#include "ByteTranspose.h"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace nnaccel::reference {

namespace {

/// Largest u8 value of the low part of a split source (the int8 kernels' bound, Int8Conv.h).
constexpr uint8_t kLowPartMax = 128;
/// Rows and columns of one block.
constexpr int64_t kTransposeBlock = 8;
/// Columns per stripe (see transposeBytes).
constexpr int64_t kStripe = 512;

#if defined(__SSE2__)
/// Stores the low 8 bytes of \p v at \p at and the high 8 bytes \p stride further.
inline void storeHalves(uint8_t* at, int64_t stride, __m128i v) {
  _mm_storel_epi64(reinterpret_cast<__m128i*>(at), v);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(at + stride), _mm_unpackhi_epi64(v, v));
}

/// The 8 x 8 block at \p in (row length \p inStride) transposed: out(offset, v) receives
/// destination rows 2k (low half of v) and 2k + 1 for k = 0..3, offset being row 2k's (rows
/// \p outStride apart).
template <typename Out>
inline void transposeBlock(const uint8_t* in, int64_t inStride, int64_t offset, int64_t outStride,
                           const Out& out) {
  __m128i a[kTransposeBlock];
  for (int64_t i = 0; i < kTransposeBlock; ++i)
    a[i] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i * inStride));
  // Rows 2i, 2i + 1 interleaved; then four rows per column in 32-bit units; then eight.
  const __m128i s0 = _mm_unpacklo_epi8(a[0], a[1]), s1 = _mm_unpacklo_epi8(a[2], a[3]);
  const __m128i s2 = _mm_unpacklo_epi8(a[4], a[5]), s3 = _mm_unpacklo_epi8(a[6], a[7]);
  const __m128i t0 = _mm_unpacklo_epi16(s0, s1), t1 = _mm_unpackhi_epi16(s0, s1);
  const __m128i t2 = _mm_unpacklo_epi16(s2, s3), t3 = _mm_unpackhi_epi16(s2, s3);
  out(offset, _mm_unpacklo_epi32(t0, t2));
  out(offset + 2 * outStride, _mm_unpackhi_epi32(t0, t2));
  out(offset + 4 * outStride, _mm_unpacklo_epi32(t1, t3));
  out(offset + 6 * outStride, _mm_unpackhi_epi32(t1, t3));
}
#endif

/// dst[c][r] = f(src[r][c]) for a rows x cols byte matrix: out(offset, 16 bytes) for whole 8 x 8
/// blocks (see transposeBlock), scalar(offset, byte) for the edges, offsets into the
/// destination (row length \p rows). Blocks go in stripes of kStripe columns, in each eight
/// source rows at a time: a few sequential read streams (the prefetchers follow them) while the
/// stripe's destination rows stay in the cache until the last rows have filled them.
template <typename Out, typename Scalar>
void transposeBytes(const uint8_t* src, int64_t rows, int64_t cols, const Out& out,
                    const Scalar& scalar) {
  int64_t wholeCols = 0;
#if defined(__SSE2__)
  const int64_t wholeRows = rows / kTransposeBlock * kTransposeBlock;
  wholeCols = cols / kTransposeBlock * kTransposeBlock;
  for (int64_t stripe = 0; stripe < wholeCols; stripe += kStripe) {
    const int64_t stripeEnd = std::min(wholeCols, stripe + kStripe);
    for (int64_t r0 = 0; r0 < wholeRows; r0 += kTransposeBlock) {
      const uint8_t* in = src + r0 * cols;
      for (int64_t c0 = stripe; c0 < stripeEnd; c0 += kTransposeBlock)
        transposeBlock(in + c0, cols, c0 * rows + r0, rows, out);
    }
    for (int64_t c = stripe; c < stripeEnd; ++c)
      for (int64_t r = wholeRows; r < rows; ++r)
        scalar(c * rows + r, src[r * cols + c]);
  }
#endif
  for (int64_t c = wholeCols; c < cols; ++c)
    for (int64_t r = 0; r < rows; ++r)
      scalar(c * rows + r, src[r * cols + c]);
}

/// u = byte + shift, split into min(u, 128) and the rest.
struct SplitByte {
  uint8_t low, rest;
};
inline SplitByte splitByte(uint8_t v, uint8_t shift) {
  const auto u = static_cast<uint8_t>(v + shift);
  const auto above = static_cast<uint8_t>(u > kLowPartMax ? u - kLowPartMax : 0);
  return {static_cast<uint8_t>(u - above), above};
}

} // namespace

void toChannelsLast(const int8_t* x, int64_t batch, int64_t channels, int64_t positions,
                    uint8_t shift, uint8_t* low, uint8_t* rest) {
  const int64_t image = channels * positions;
  for (int64_t n = 0; n < batch; ++n) {
    const auto* in = reinterpret_cast<const uint8_t*>(x) + n * image;
    uint8_t* lowImage = low + n * image;
    if (!rest) {
      const auto scalar = [&](int64_t at, uint8_t v) {
        lowImage[at] = static_cast<uint8_t>(v + shift);
      };
#if defined(__SSE2__)
      const __m128i add = _mm_set1_epi8(static_cast<char>(shift));
      const auto out = [&](int64_t at, __m128i v) {
        storeHalves(lowImage + at, channels, _mm_add_epi8(v, add));
      };
      transposeBytes(in, channels, positions, out, scalar);
#else
      transposeBytes(in, channels, positions, 0, scalar);
#endif
      continue;
    }
    uint8_t* restImage = rest + n * image;
    const auto scalar = [&](int64_t at, uint8_t v) {
      const SplitByte b = splitByte(v, shift);
      lowImage[at] = b.low;
      restImage[at] = b.rest;
    };
#if defined(__SSE2__)
    const __m128i add = _mm_set1_epi8(static_cast<char>(shift));
    const __m128i bound = _mm_set1_epi8(static_cast<char>(kLowPartMax));
    const auto out = [&](int64_t at, __m128i v) {
      const __m128i u = _mm_add_epi8(v, add);
      const __m128i above = _mm_subs_epu8(u, bound);
      storeHalves(restImage + at, channels, above);
      storeHalves(lowImage + at, channels, _mm_sub_epi8(u, above));
    };
    transposeBytes(in, channels, positions, out, scalar);
#else
    transposeBytes(in, channels, positions, 0, scalar);
#endif
  }
}

} // namespace nnaccel::reference
