// Looking a response's resource name up among canonical names without
// normalizing it (ResourceCache::Find). Control planes usually send a name
// spelled exactly as the client subscribed with it, i.e. canonically, or at
// most with its context params in another order. CanonicalGuess takes the
// raw name to be such a spelling, which it does not check: it finds the
// query's pieces, orders them and computes the hash the canonical form
// would have (NormalizedNameView::hash), in one pass over the bytes, without
// copying them.
//
//   CanonicalGuess guess;
//   if (guess.Guess(raw, /*federation=*/true)) {
//     // probe a table of canonical names with guess.hash(); for a stored
//     // name e: guess.Matches(e) <=> e is the canonical form of raw
//   }
//   // no stored name matched: raw may still be another spelling of one
//   // (escapes, a fragment, ...): normalize it (NameNormalizer).
//
// Why a match is exact: Matches(e) says that e is raw's bytes up to its
// first '?' followed by raw's '&'-separated pieces after it, sorted by key.
// As e is canonical, its pieces are canonical params with distinct keys, so
// raw is e with its params permuted, and Normalize(raw) sorts them back: e.
#ifndef XDSFED_LIB_NAME_CANONICAL_GUESS_H_
#define XDSFED_LIB_NAME_CANONICAL_GUESS_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace xdsfed {

class CanonicalGuess {
 public:
  // Most params a guess takes.
  static constexpr size_t kMaxParams = 16;

  // Returns false (and guesses nothing) with federation off, for a name not
  // starting with "xdstp://", shorter than 16 or longer than
  // kMaxResourceNameLength bytes, with an empty piece or more than
  // kMaxParams of them, or with a key given twice. raw must outlive the
  // guess.
  bool Guess(absl::string_view raw, bool federation);

  // After a successful Guess(): the hash the guessed canonical form has,
  // and its length (that of raw).
  size_t hash() const { return hash_; }
  size_t size() const { return n_; }
  // True if canonical is the guessed canonical form.
  bool Matches(absl::string_view canonical) const;

 private:
  struct Piece {
    uint32_t begin;  // offset in raw
    uint32_t len;
  };
  const char* raw_ = nullptr;
  uint32_t n_ = 0;
  uint32_t query_ = 0;  // offset of the first '?'; n_ if none
  uint32_t count_ = 0;  // pieces, in canonical (key) order
  bool sorted_ = true;  // raw has them in that order already
  size_t hash_ = 0;
  Piece pieces_[kMaxParams];
};

}  // namespace xdsfed

#endif  // XDSFED_LIB_NAME_CANONICAL_GUESS_H_
