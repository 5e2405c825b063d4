/// \file
/// A zero-filled byte buffer whose pages cost memory only once written: calloc, which for large
/// sizes maps fresh pages the kernel zeroes on first touch instead of writing every byte.
/// Simulators size their memories from a program's address extents (an SBUF partition of 1 GiB,
/// say); with a std::vector every byte would be written at reset, while a program usually
/// touches a small part. So the resident memory follows what the program uses (issue 20,
/// docs/ErrorHandling.md "Resource guards"), and a reset of a large, mostly unused memory is
/// cheap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace nnaccel {

class ZeroedBytes {
public:
  ZeroedBytes() = default;

  /// \p bytes zero bytes (the old contents are dropped). Throws std::bad_alloc when the
  /// allocation fails; callers check the size against the memory budget first.
  void assign(size_t bytes) {
    data_.reset();
    size_ = 0;
    if (bytes == 0)
      return;
    data_.reset(static_cast<uint8_t*>(std::calloc(bytes, 1)));
    if (!data_)
      throw std::bad_alloc();
    size_ = bytes;
  }

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> data_;
  size_t size_ = 0;
};

} // namespace nnaccel
