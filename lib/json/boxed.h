// Boxed<T>: an optional value kept on the heap, for a message field whose
// type is not complete where the field is declared (a struct that contains
// itself, directly or through a cycle). std::optional<T> needs a complete T;
// Boxed<T> does not. It keeps value semantics: copies are deep and == compares
// the values.
//
//   struct Node {
//     Boxed<Node> parent;  // std::optional<Node> would not compile
//   };
//   Node n;
//   n.parent.emplace().parent.emplace();
//   Node copy = n;  // deep copy; copy == n
#ifndef XDSFED_LIB_JSON_BOXED_H_
#define XDSFED_LIB_JSON_BOXED_H_

#include <memory>
#include <utility>

namespace xdsfed {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  // Implicit, like std::optional, so that `box = value;` works.
  Boxed(const T& value) : ptr_(std::make_unique<T>(value)) {}        // NOLINT
  Boxed(T&& value) : ptr_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Boxed(const Boxed& other)
      : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Boxed(Boxed&& other) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) {
      ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    }
    return *this;
  }
  Boxed& operator=(Boxed&& other) noexcept = default;
  ~Boxed() = default;

  bool has_value() const { return ptr_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  // Like std::optional, dereferencing an empty box is undefined.
  T& operator*() { return *ptr_; }
  const T& operator*() const { return *ptr_; }
  T* operator->() { return ptr_.get(); }
  const T* operator->() const { return ptr_.get(); }
  T& value() { return *ptr_; }
  const T& value() const { return *ptr_; }

  // Replaces the contents with a default-constructed T and returns it.
  T& emplace() {
    ptr_ = std::make_unique<T>();
    return *ptr_;
  }
  void reset() { ptr_.reset(); }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || *a == *b;
  }
  friend bool operator!=(const Boxed& a, const Boxed& b) { return !(a == b); }

 private:
  std::unique_ptr<T> ptr_;
};

}  // namespace xdsfed

#endif  // XDSFED_LIB_JSON_BOXED_H_
