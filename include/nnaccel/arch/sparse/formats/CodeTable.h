/// \file
/// Code tables of the SCNN compressed-sparse position encoding (seed 001, digest §3.3-3.4).
///
/// A position code is a small integer (4 bits in the patent) that indexes a table of
/// coordinate-typed codes: Rn ("n zeros, then the next element along the fast axis"), Sn
/// ("next row, fast coordinate = n") and Kn ("next channel, s = 0, r = n"). Activations use
/// the same kinds under the names Xn (= Rn) and Yn (= Sn) with no channel axis. The table is a
/// runtime parameter of both encoder and decoder (digest §3.3 [R]): the built-in tables are
/// the patent's Figs. 4C and 5A-5E and the plain zero-run-length form; users may supply their
/// own with CodeTable::parse.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::arch::sparse::formats {

/// The type of a code (Table 11). Run = R/X, Row = S/Y, Channel = K.
enum class CodeKind : uint8_t {
  Run,     ///< R/X n: n zeros, then the next element along the fast axis
  Row,     ///< S/Y n: next row, fast coordinate = n
  Channel, ///< K n: next channel, s = 0, r = n (weights only)
};

/// One table entry: a kind and its argument n (>= 0).
struct Code {
  CodeKind kind = CodeKind::Run;
  int32_t n = 0;
  bool operator==(const Code&) const = default;
};

/// The letter of \p kind in the weight naming (R, S, K).
char codeKindLetter(CodeKind kind);

/// A table of at most 2^16 codes, indexed by the code number. It need not fill 2^bits().
class CodeTable {
public:
  /// Builds a table named \p name from \p codes; throws nnaccel::Error (Config, file =
  /// \p name) when it is empty, larger than 2^16, has a duplicate, a negative n, or no Run
  /// code.
  CodeTable(std::string name, std::vector<Code> codes);

  /// R0 .. R(2^indexBits - 1): the basic zero-run-length form (4 bits in the patent).
  /// indexBits must be in [1, 16] (throws nnaccel::Error, Usage).
  static CodeTable zeroRunLength(int indexBits);
  /// Fig. 4C, weight row: R0-R8 R10 S0-S3 K0 K1.
  static CodeTable fig4cWeights();
  /// Fig. 4C, IA row: X0-X8 X10 X16 X24 Y0-Y3. Code 10 is printed "Y16"; digest erratum 9
  /// reads it as X16 (the default); \p code10IsY16 selects the printed Y16.
  static CodeTable fig4cActivations(bool code10IsY16 = false);
  /// Fig. 5A: non-linear IA zero counts R0-R7 R12 R16 R24 R32 R48 R64 R96 R128.
  static CodeTable fig5a();
  /// Fig. 5B: IA R0-R7 Y0-Y7.
  static CodeTable fig5b();
  /// Fig. 5C: IA R0-R10 Y0-Y4.
  static CodeTable fig5c();
  /// Fig. 5D: weights R0-R13 K0 K1 (r rounded to a power of two).
  static CodeTable fig5d();
  /// Fig. 5E: weights R0-R9 S0-S3 K0 K1.
  static CodeTable fig5e();
  /// A built-in table by name: "zrl4" (any "zrlN"), "fig4c-weights", "fig4c-ia",
  /// "fig4c-ia-y16", "fig5a" .. "fig5e". Throws nnaccel::Error (Config, key = \p name) for
  /// an unknown name.
  static CodeTable builtin(std::string_view name);

  /// A user-supplied table, e.g. "R0 R1 R2 S0 K1" (whitespace or commas separate tokens; X is
  /// accepted for R and Y for S, either case). Throws nnaccel::Error (Config, file =
  /// \p source) for a bad token, more than 2^16 entries, a duplicate, or no Run code.
  static CodeTable parse(std::string_view text, std::string_view source);

  const std::string& name() const { return name_; }
  size_t size() const { return codes_.size(); }
  const Code& operator[](size_t index) const { return codes_[index]; }
  std::span<const Code> codes() const { return codes_; }
  /// Code width in bits: ceil(log2(size())), at least 1.
  int bits() const { return bits_; }

  /// The code number of (kind, n), or -1 if the table has no such code.
  int find(CodeKind kind, int32_t n) const;
  /// The arguments n of all codes of \p kind, ascending.
  std::span<const int32_t> arguments(CodeKind kind) const;
  bool has(CodeKind kind) const { return !arguments(kind).empty(); }

  /// "R0 R1 ... K1" (weight letters); parse(toString()) gives an equal table.
  std::string toString() const;

  /// Tables are equal when their codes are (the name is ignored).
  bool operator==(const CodeTable& other) const { return codes_ == other.codes_; }

private:
  std::string name_;
  std::vector<Code> codes_;
  std::vector<int32_t> arguments_[3];    ///< per CodeKind, ascending
  std::vector<uint16_t> codeNumbers_[3]; ///< the code number of each arguments_ entry
  int bits_ = 1;
};

} // namespace nnaccel::arch::sparse::formats
