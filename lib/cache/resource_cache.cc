#include "lib/cache/resource_cache.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace xdsfed {
namespace cache {
namespace {

constexpr absl::string_view kTypeUrlPrefix = "type.googleapis.com/";

// NameNormalizer's hash covers the type segment of new-style names but not
// the type an old-style name is requested as, so the interned type id is mixed
// in: the same old-style name as a Listener and as a Cluster are two entries.
size_t SlotHash(size_t name_hash, TypeId type) {
  return name_hash ^ ((uint64_t{type} + 1) * 0x9E3779B97F4A7C15ull);
}

int64_t ToNanos(absl::Time t) {
  return t == absl::InfinitePast() ? kNever : absl::ToUnixNanos(t);
}

absl::Time FromNanos(int64_t nanos) {
  return nanos == kNever ? absl::InfinitePast() : absl::FromUnixNanos(nanos);
}

}  // namespace

absl::string_view StateName(State state) {
  switch (state) {
    case State::kRequested:
      return "REQUESTED";
    case State::kAcked:
      return "ACKED";
    case State::kNacked:
      return "NACKED";
    case State::kDoesNotExist:
      return "DOES_NOT_EXIST";
  }
  return "UNKNOWN";
}

// --- Entry ---

absl::string_view Entry::version() const {
  return version_ == nullptr ? absl::string_view() : version_->first;
}

absl::Time Entry::update_time() const { return FromNanos(update_unix_nanos_); }

absl::string_view Entry::serialized() const {
  if (extra_ == nullptr) return absl::string_view();
  if (const auto* shared = std::get_if<1>(&extra_->serialized)) {
    return **shared;
  }
  return std::get<0>(extra_->serialized);
}

std::shared_ptr<const std::string> Entry::shared_serialized() const {
  if (extra_ == nullptr) return nullptr;
  if (const auto* shared = std::get_if<1>(&extra_->serialized)) {
    return *shared;
  }
  const std::string& bytes = std::get<0>(extra_->serialized);
  if (bytes.empty()) return nullptr;
  return std::make_shared<const std::string>(bytes);
}

absl::Status Entry::error() const {
  return extra_ == nullptr ? absl::OkStatus() : extra_->error;
}

absl::string_view Entry::error_version() const {
  return extra_ == nullptr ? absl::string_view() : extra_->error_version;
}

absl::Time Entry::error_time() const {
  return extra_ == nullptr ? absl::InfinitePast()
                           : FromNanos(extra_->error_unix_nanos);
}

// --- ResourceCache ---

bool ResourceCache::EntryEq::operator()(const Entry* a, const Entry* b) const {
  return a == b || (a->hash_ == b->hash_ && a->type_ == b->type_ &&
                    a->old_style_ == b->old_style_ && a->name() == b->name());
}

bool ResourceCache::EntryEq::operator()(const Entry* a,
                                        const GuessProbe& b) const {
  return a->hash_ == b.hash && a->type_ == b.type && !a->old_style_ &&
         b.guess->Matches(a->name());
}

bool ResourceCache::EntryEq::operator()(const Entry* a, const Probe& b) const {
  // The canonical name determines authority, type segment and key of a
  // new-style name; an old-style name is its own canonical form.
  return a->hash_ == b.hash && a->type_ == b.type &&
         a->old_style_ == b.old_style && a->name() == b.name;
}

ResourceCache::ResourceCache(bool federation) : federation_(federation) {
  authorities_.emplace_back();  // kOldStyleAuthority: not in authority_index_
}

ResourceCache::~ResourceCache() {
  for (Entry* e : index_) DestroyEntry(e);
}

TypeId ResourceCache::RegisterType(absl::string_view resource_type) {
  auto it = type_index_.find(resource_type);
  if (it != type_index_.end()) return it->second;
  TypeId id = static_cast<TypeId>(types_.size());
  types_.emplace_back(resource_type);
  type_index_.emplace(std::string(resource_type), id);
  return id;
}

AuthorityId ResourceCache::AddAuthority(absl::string_view authority,
                                        ServerId server) {
  auto it = authority_index_.find(authority);
  if (it != authority_index_.end()) {
    authorities_[it->second].server = server;
    return it->second;
  }
  AuthorityId id = static_cast<AuthorityId>(authorities_.size());
  authorities_.emplace_back();
  authorities_.back().name = std::string(authority);
  authorities_.back().server = server;
  authority_index_.emplace(std::string(authority), id);
  return id;
}

absl::StatusOr<AuthorityId> ResourceCache::FindAuthority(
    absl::string_view authority) const {
  auto it = authority_index_.find(authority);
  if (it == authority_index_.end()) {
    return absl::NotFoundError(
        absl::StrCat("authority \"", authority, "\" is not configured"));
  }
  return it->second;
}

absl::StatusOr<ResourceCache::Key> ResourceCache::Parse(
    TypeId type, absl::string_view raw_name) {
  absl::StatusOr<NormalizedNameView> view =
      normalizer_.Normalize(raw_name, federation_, types_[type]);
  if (!view.ok()) return view.status();
  Key key;
  key.name = *view;
  key.type = type;
  key.hash = SlotHash(view->hash, type);
  return key;
}

Entry* ResourceCache::Find(const Key& key) {
  return FindProbe(
      Probe{key.name.normalized, key.hash, key.type, key.name.old_style});
}

Entry* ResourceCache::Find(TypeId type, absl::string_view raw_name) {
  // Most names in a response are canonical but for the order of their
  // params: probe with that guess first. A hit is exact (see
  // lib/name/canonical_guess.h; Insert keeps every new-style entry's type
  // segment matching its TypeId, which Normalize would otherwise check).
  CanonicalGuess guess;
  if (guess.Guess(raw_name, federation_)) {
    if (Entry* e =
            FindProbe(GuessProbe{&guess, SlotHash(guess.hash(), type), type})) {
      return e;
    }
  }
  // A miss, or another spelling of a stored name: normalize.
  NormalizedNameView name;
  if (!normalizer_.NormalizeInto(raw_name, federation_, types_[type], &name)) {
    return nullptr;
  }
  return FindProbe(
      Probe{name.normalized, SlotHash(name.hash, type), type, name.old_style});
}

absl::StatusOr<ResourceCache::InsertResult> ResourceCache::Insert(
    TypeId type, absl::string_view raw_name) {
  absl::StatusOr<Key> key = Parse(type, raw_name);
  if (!key.ok()) return key.status();
  return Insert(*key);
}

absl::StatusOr<ResourceCache::InsertResult> ResourceCache::Insert(
    const Key& key) {
  if (Entry* found = Find(key)) return InsertResult{found, false};
  AuthorityId authority = kOldStyleAuthority;
  if (!key.name.old_style) {
    // Parse() checked it; a Key built by hand may not have been. Find(type,
    // raw) relies on it (its guessed probe does not look at the type).
    if (!TypeSegmentMatches(key.name.type, types_[key.type])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid xdstp name: resource type \"", key.name.type,
          "\" does not match expected type \"",
          absl::StripPrefix(types_[key.type], kTypeUrlPrefix), "\""));
    }
    auto it = authority_index_.find(key.name.authority);
    if (it == authority_index_.end()) {
      return absl::NotFoundError(absl::StrCat(
          "authority \"", key.name.authority, "\" of resource name \"",
          key.name.normalized, "\" is not configured"));
    }
    authority = it->second;
  }
  const absl::string_view name = key.name.normalized;
  // One block: the fixed fields, then the canonical name.
  void* block = arena_.Allocate(sizeof(Entry) + name.size());
  Entry* e = new (block) Entry();
  std::memcpy(const_cast<char*>(reinterpret_cast<const char*>(e + 1)),
              name.data(), name.size());
  e->hash_ = key.hash;
  e->name_len_ = static_cast<uint32_t>(name.size());
  // lib/name writes the key as the tail of the canonical name; if it ever
  // did not, key() falls back to the whole name rather than lie.
  e->key_offset_ =
      absl::EndsWith(name, key.name.key)
          ? static_cast<uint32_t>(name.size() - key.name.key.size())
          : 0;
  e->authority_ = authority;
  e->type_ = key.type;
  e->old_style_ = key.name.old_style;
  e->state_ = State::kRequested;
  auto& groups = authorities_[authority].groups;
  if (groups.size() <= key.type) groups.resize(key.type + 1);
  e->group_pos_ = static_cast<uint32_t>(groups[key.type].size());
  groups[key.type].push_back(e);
  index_.insert(e);
  return InsertResult{e, true};
}

void ResourceCache::SetVersion(Entry* entry, absl::string_view version) {
  if (entry->version_ != nullptr && entry->version_->first == version) return;
  Entry::VersionNode* node = nullptr;
  if (version.empty()) {
    node = nullptr;
  } else if (last_version_ != nullptr && last_version_->first == version) {
    node = last_version_;
    ++node->second;
  } else {
    auto it = versions_.try_emplace(std::string(version), 0).first;
    node = &*it;
    ++node->second;
    last_version_ = node;
  }
  if (entry->version_ != nullptr) ReleaseVersion(entry->version_);
  entry->version_ = node;
}

void ResourceCache::ReleaseVersion(Entry::VersionNode* node) {
  if (--node->second > 0) return;
  if (last_version_ == node) last_version_ = nullptr;
  versions_.erase(node->first);
}

void ResourceCache::SetAcked(Entry* entry,
                             std::shared_ptr<const ResourceData> value,
                             std::string serialized, absl::string_view version,
                             absl::Time now) {
  entry->state_ = State::kAcked;
  entry->value_ = std::move(value);
  SetVersion(entry, version);
  entry->update_unix_nanos_ = ToNanos(now);
  if (serialized.empty()) {
    entry->extra_.reset();  // no error either: an ACK clears it
  } else {
    if (entry->extra_ == nullptr)
      entry->extra_ = std::make_unique<Entry::Extra>();
    entry->extra_->error = absl::OkStatus();
    entry->extra_->error_version.clear();
    entry->extra_->error_unix_nanos = kNever;
    if (serialized.size() >= Entry::kSharedSerializedBytes) {
      entry->extra_->serialized =
          std::make_shared<const std::string>(std::move(serialized));
    } else {
      entry->extra_->serialized = std::move(serialized);
    }
  }
}

void ResourceCache::SetNacked(Entry* entry, absl::Status error,
                              absl::string_view version, absl::Time now) {
  entry->state_ = State::kNacked;
  if (entry->extra_ == nullptr)
    entry->extra_ = std::make_unique<Entry::Extra>();
  entry->extra_->error = std::move(error);
  entry->extra_->error_version = std::string(version);
  entry->extra_->error_unix_nanos = ToNanos(now);
}

void ResourceCache::SetDoesNotExist(Entry* entry, absl::Time now) {
  entry->state_ = State::kDoesNotExist;
  entry->value_.reset();
  entry->update_unix_nanos_ = ToNanos(now);
  if (entry->extra_ != nullptr) {
    if (entry->extra_->error.ok()) {
      entry->extra_.reset();
    } else {
      entry->extra_->serialized = std::string();
    }
  }
}

bool ResourceCache::AddWatcher(Entry* entry, WatcherId watcher) {
  entry->watchers_.push_back(watcher);
  return entry->watchers_.size() == 1;
}

bool ResourceCache::RemoveWatcher(Entry* entry, WatcherId watcher) {
  auto& w = entry->watchers_;
  auto it = std::find(w.begin(), w.end(), watcher);
  if (it == w.end()) return false;
  w.erase(it);
  return true;
}

void ResourceCache::Erase(Entry* entry) {
  index_.erase(entry);
  auto& group = authorities_[entry->authority_].groups[entry->type_];
  Entry* last = group.back();
  group[entry->group_pos_] = last;
  last->group_pos_ = entry->group_pos_;
  group.pop_back();
  DestroyEntry(entry);
}

void ResourceCache::DestroyEntry(Entry* entry) {
  if (entry->version_ != nullptr) ReleaseVersion(entry->version_);
  const size_t size = sizeof(Entry) + entry->name_len_;
  entry->~Entry();
  arena_.Free(entry, size);
}

}  // namespace cache
}  // namespace xdsfed
