/*
 * ztensor.hpp: a small C++17 RAII wrapper over the C API in ztensor.h.
 *
 *     zt::File f = zt::File::open("model.zt");
 *     for (zt::Object o : f) {
 *         if (auto w = o.try_view<float>())                  // zero-copy f32, when possible
 *             use(w->data(), w->size());
 *         else if (o.format() == "dense")
 *             use(o.read<float>());                          // f16, bf16, FP8, ints: converted
 *     }
 *     zt::Object w = f.at("layer.0.weight");                 // throws if absent
 *     std::vector<std::byte> bytes = w.read();               // decoded bytes, any dtype
 *
 *     zt::Writer out = zt::Writer::create("out.zt");
 *     std::vector<float> bias = {0.5f, -0.5f};
 *     out.add_dense("bias", {2}, bias, zt::WriteOptions().zstd().digest(ZT_DIGEST_SHA256)
 *                                          .attribute("layer", 3));
 *     out.set_attribute("framework", "mine");
 *     out.finish();               // publishes out.zt; without it, nothing is
 *
 * Errors are thrown as zt::Error (status() + the library's message). A zt::File is
 * move-only and closes its handle; zt::Object and zt::Span are cheap views
 * that must not outlive their File. A File may be shared by many threads
 * as long as none moves or destroys it meanwhile. A zt::Writer is
 * move-only, used by one thread at a time, and aborts (removes its
 * temporary file) when destroyed unfinished.
 *
 * Header-only; link with the C library (CMake target ztensor::ztensor).
 */
#ifndef ZTENSOR_HPP
#define ZTENSOR_HPP

#include "ztensor.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace zt {

/// A failed call: its status and the library's message.
class Error : public std::runtime_error {
public:
    Error(zt_status status, const std::string &message) : std::runtime_error(message), status_(status) {}
    zt_status status() const noexcept { return status_; }

private:
    zt_status status_;
};

/// Throw the calling thread's last error when `s` is not ZT_OK. The
/// library's message already says what failed (it starts like
/// zt_status_str(s) where that helps); the status is Error::status().
inline void check(zt_status s) {
    if (s == ZT_OK) return;
    const char *m = zt_last_error();
    throw Error(s, (m && *m) ? m : zt_status_str(s));
}

/// A contiguous read-only run of `T` (std::span is C++20).
template <class T>
class Span {
public:
    constexpr Span() noexcept = default;
    constexpr Span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}

    constexpr T *data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T *begin() const noexcept { return data_; }
    constexpr T *end() const noexcept { return data_ + size_; }
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
    constexpr Span subspan(std::size_t offset, std::size_t count) const noexcept {
        return Span(data_ + offset, count);
    }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};

/// Whether elements of `dtype` may be viewed as `T` (same width and kind;
/// u16 views f16/bf16 bits, u8 views bool and FP8 bytes).
template <class T>
constexpr bool dtype_accepts(zt_dtype dtype) noexcept {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, double>) return dtype == ZT_DTYPE_F64;
    else if constexpr (std::is_same_v<U, float>) return dtype == ZT_DTYPE_F32;
    else if constexpr (std::is_same_v<U, std::int64_t>) return dtype == ZT_DTYPE_I64;
    else if constexpr (std::is_same_v<U, std::int32_t>) return dtype == ZT_DTYPE_I32;
    else if constexpr (std::is_same_v<U, std::int16_t>) return dtype == ZT_DTYPE_I16;
    else if constexpr (std::is_same_v<U, std::int8_t>) return dtype == ZT_DTYPE_I8;
    else if constexpr (std::is_same_v<U, std::uint64_t>) return dtype == ZT_DTYPE_U64;
    else if constexpr (std::is_same_v<U, std::uint32_t>) return dtype == ZT_DTYPE_U32;
    else if constexpr (std::is_same_v<U, std::uint16_t>)
        return dtype == ZT_DTYPE_U16 || dtype == ZT_DTYPE_F16 || dtype == ZT_DTYPE_BF16;
    else if constexpr (std::is_same_v<U, std::uint8_t>) return dtype == ZT_DTYPE_U8 || dtype == ZT_DTYPE_BOOL;
    else if constexpr (std::is_same_v<U, std::byte>) return true;
    else return false;
}

inline std::string_view sv(const char *p, std::size_t n) { return p ? std::string_view(p, n) : std::string_view(); }

/// One component's description, with string views into the file.
struct Component {
    zt_component_info info;

    std::string_view role() const { return sv(info.role, info.role_len); }
    std::string_view logical_type() const { return sv(info.logical_type, info.logical_type_len); }
    std::string_view digest() const { return sv(info.digest, info.digest_len); }
    zt_dtype dtype() const { return info.dtype; }
    bool compressed() const { return info.encoding == ZT_ENCODING_ZSTD || info.encoding == ZT_ENCODING_ZSTD_SEEKABLE; }
    /// The encoding as the file names it: "raw", "zstd", or a v2 profile id.
    std::string_view encoding_id() const { return sv(info.encoding_id, info.encoding_id_len); }
    /// v2: the shard file holding the bytes (empty: this file).
    std::string_view shard() const { return sv(info.shard, info.shard_len); }
};

/// An object (tensor) of an open File: a cheap view, valid while the File lives.
class Object {
public:
    Object(const zt_file *file, zt_object obj) noexcept : file_(file), obj_(obj) {}

    std::size_t index() const noexcept { return obj_.index; }
    const zt_object &handle() const noexcept { return obj_; }

    zt_object_info info() const {
        zt_object_info i;
        check(zt_object_get_info(file_, &obj_, &i));
        return i;
    }

    /// Number of elements: the product of the shape (1 for a scalar).
    std::uint64_t numel() const { return info().numel; }

    /// Storage type of a component (the data of a dense tensor by default).
    zt_dtype dtype(std::string_view role = "data") const { return component(role).dtype(); }

    std::string_view name() const {
        const char *p;
        std::size_t n;
        check(zt_object_name(file_, &obj_, &p, &n));
        return std::string_view(p, n);
    }

    std::string_view format() const {
        const char *p;
        std::size_t n;
        check(zt_object_format(file_, &obj_, &p, &n));
        return std::string_view(p, n);
    }

    std::vector<std::uint64_t> shape() const {
        std::size_t ndim = 0;
        zt_status s = zt_object_shape(file_, &obj_, nullptr, 0, &ndim);
        if (s != ZT_OK && s != ZT_ERR_BUFFER_TOO_SMALL) check(s);
        std::vector<std::uint64_t> dims(ndim);
        check(zt_object_shape(file_, &obj_, dims.data(), dims.size(), &ndim));
        return dims;
    }

    std::size_t component_count() const { return info().component_count; }

    Component component_at(std::size_t i) const {
        Component c;
        check(zt_component_at(file_, &obj_, i, &c.info));
        return c;
    }

    Component component(std::string_view role = "data") const {
        Component c;
        check(zt_component(file_, &obj_, role.data(), role.size(), &c.info));
        return c;
    }

    /// Bytes the decoded component needs (checked against what the stored
    /// bytes can produce: safe to allocate).
    std::size_t decoded_size(std::string_view role = "data") const {
        std::size_t need = 0;
        zt_status s = zt_component_read(file_, &obj_, role.data(), role.size(), nullptr, 0, &need);
        if (s != ZT_ERR_BUFFER_TOO_SMALL) check(s);
        return need;
    }

    /// Decode into `dst` (capacity `cap` bytes); returns the bytes written.
    std::size_t read_into(void *dst, std::size_t cap, std::string_view role = "data") const {
        std::size_t n = 0;
        check(zt_component_read(file_, &obj_, role.data(), role.size(), dst, cap, &n));
        return n;
    }

    /// Decode bytes `start .. start + len` of the component into `dst`
    /// (a `zt.zstd-seekable/1` part decodes only the frames covering them);
    /// returns the bytes written. A range past the end throws
    /// ZT_ERR_INVALID_ARGUMENT.
    std::size_t read_range_into(std::uint64_t start, void *dst, std::size_t len,
                                std::string_view role = "data") const {
        check(zt_component_read_range(file_, &obj_, role.data(), role.size(), start, dst, len));
        return len;
    }

    /// Decode into a new buffer (little-endian elements).
    std::vector<std::byte> read(std::string_view role = "data") const {
        std::vector<std::byte> v(decoded_size(role));
        v.resize(read_into(v.data(), v.size(), role));
        return v;
    }

    /// The stored bytes without copying; throws ZT_ERR_NOT_ZERO_COPY when
    /// the component is compressed, big-endian or the file positional.
    Span<const std::byte> bytes(std::string_view role = "data") const {
        const std::uint8_t *p;
        std::size_t n;
        check(zt_component_ptr(file_, &obj_, role.data(), role.size(), &p, &n));
        return Span<const std::byte>(reinterpret_cast<const std::byte *>(p), n);
    }

    /// The elements as `T` without copying; throws on a dtype mismatch,
    /// misaligned memory, or when no zero-copy view exists.
    template <class T>
    Span<const T> view(std::string_view role = "data") const {
        Component c = component(role);
        if (!dtype_accepts<T>(c.dtype()))
            throw Error(ZT_ERR_INVALID_ARGUMENT, "zt::Object::view: element type does not match the dtype");
        Span<const std::byte> b = bytes(role);
        if (reinterpret_cast<std::uintptr_t>(b.data()) % alignof(T) != 0)
            throw Error(ZT_ERR_NOT_ZERO_COPY, "zt::Object::view: data is not aligned for this type");
        return Span<const T>(reinterpret_cast<const T *>(b.data()), b.size() / sizeof(T));
    }

    /// `view<T>`, or nothing for every reason no such view exists: no
    /// component `role` (sparse objects have none called "data"), `T` does
    /// not match the dtype, the data is compressed, big-endian, misaligned,
    /// in a v2 data shard (another file) or the file positional. Only a
    /// broken handle throws.
    template <class T>
    std::optional<Span<const T>> try_view(std::string_view role = "data") const {
        zt_component_info c;
        zt_status s = zt_component(file_, &obj_, role.data(), role.size(), &c);
        if (s == ZT_ERR_NOT_FOUND || (s == ZT_OK && !dtype_accepts<T>(c.dtype))) return std::nullopt;
        check(s);
        const std::uint8_t *p;
        std::size_t n;
        s = zt_component_ptr(file_, &obj_, role.data(), role.size(), &p, &n);
        if (s == ZT_ERR_NOT_ZERO_COPY || (s == ZT_OK && reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0))
            return std::nullopt;
        check(s);
        return Span<const T>(reinterpret_cast<const T *>(p), n / sizeof(T));
    }

    /// The elements decoded into a new vector of `T`, whatever the encoding.
    /// `float` and `double` accept every storage type: f16, bf16, FP8
    /// (u8 with an f8_* logical type), integers and bool are converted
    /// (zt_component_read_as). Other `T` must match the dtype as for
    /// view<T>, else ZT_ERR_INVALID_ARGUMENT.
    template <class T>
    std::vector<T> read(std::string_view role = "data") const {
        using U = std::remove_cv_t<T>;
        std::size_t need = 0;
        if constexpr (std::is_same_v<U, float> || std::is_same_v<U, double>) {
            constexpr zt_dtype to = std::is_same_v<U, float> ? ZT_DTYPE_F32 : ZT_DTYPE_F64;
            zt_status s = zt_component_read_as(file_, &obj_, role.data(), role.size(), to, nullptr, 0, &need);
            if (s != ZT_ERR_BUFFER_TOO_SMALL) check(s);
            std::vector<U> v(need / sizeof(U));
            check(zt_component_read_as(file_, &obj_, role.data(), role.size(), to, v.data(), v.size() * sizeof(U),
                                       &need));
            v.resize(need / sizeof(U));
            return v;
        } else {
            if (!dtype_accepts<U>(dtype(role)))
                throw Error(ZT_ERR_INVALID_ARGUMENT, "zt::Object::read: element type does not match the dtype");
            std::vector<U> v(decoded_size(role) / sizeof(U));
            v.resize(read_into(v.data(), v.size() * sizeof(U), role) / sizeof(U));
            return v;
        }
    }

private:
    const zt_file *file_;
    zt_object obj_;
};

/// An open, validated zTensor file. Move-only; closes on destruction.
class File {
public:
    /// Open `path` (memory-mapped; ZT_OPEN_POSITIONAL for positional reads).
    static File open(const std::string &path, std::uint32_t flags = 0) {
        zt_file *f = nullptr;
        check(zt_open(path.c_str(), flags, &f));
        return File(f);
    }

    /// Parse a file held in memory the caller keeps alive (and unchanged)
    /// for the File's whole life.
    static File from_memory(const void *data, std::size_t size) {
        zt_file *f = nullptr;
        check(zt_open_mem(static_cast<const std::uint8_t *>(data), size, &f));
        return File(f);
    }

    /// Open a file read through the caller's callbacks (zt_open_source):
    /// `src.close` runs once, when the File is destroyed or when this throws.
    static File from_source(const zt_source &src, std::uint32_t flags = 0) {
        zt_file *f = nullptr;
        check(zt_open_source(&src, flags, &f));
        return File(f);
    }

    const zt_file *handle() const noexcept { return h_.get(); }

    zt_file_info info() const {
        zt_file_info i;
        check(zt_file_get_info(h_.get(), &i));
        return i;
    }

    std::size_t size() const noexcept { return zt_object_count(h_.get()); }

    /// The object at manifest position `i` (throws when out of range).
    Object operator[](std::size_t i) const {
        zt_object o;
        check(zt_object_at(h_.get(), i, &o));
        return Object(h_.get(), o);
    }

    /// The object called `name`, if any (O(log n)).
    std::optional<Object> find(std::string_view name) const {
        zt_object o;
        zt_status s = zt_find(h_.get(), name.data(), name.size(), &o);
        if (s == ZT_ERR_NOT_FOUND) return std::nullopt;
        check(s);
        return Object(h_.get(), o);
    }

    /// The object called `name` (throws ZT_ERR_NOT_FOUND when absent).
    Object at(std::string_view name) const {
        zt_object o;
        check(zt_find(h_.get(), name.data(), name.size(), &o));
        return Object(h_.get(), o);
    }

    /// Check every digest and data rule (throws on the first problem found).
    void verify(std::uint32_t flags = ZT_VERIFY_ALL) const { check(zt_verify(h_.get(), flags)); }

    /// A request for load(): part `role` of `obj` decoded into `dst`, which
    /// holds exactly its decoded size (`len` bytes).
    static zt_load_request request(const Object &obj, std::string_view role, void *dst, std::size_t len) noexcept {
        return zt_load_request{obj.handle(), role.data(), role.size(), dst, len, ZT_OK};
    }

    /// Decode many parts into the caller's buffers on `threads` worker
    /// threads (0: one per core), each part's digest checked as it is read
    /// unless `flags` has ZT_LOAD_NO_VERIFY (zt_load). Every request's
    /// `status` is set; throws zt::Error for the first failed request (the
    /// others are loaded).
    void load(zt_load_request *reqs, std::size_t n, unsigned threads = 0, std::uint32_t flags = 0) const {
        check(zt_load(h_.get(), reqs, n, threads, flags));
    }
    void load(std::vector<zt_load_request> &reqs, unsigned threads = 0, std::uint32_t flags = 0) const {
        load(reqs.data(), reqs.size(), threads, flags);
    }

    /// Iteration over objects in manifest order (an input iterator: it
    /// yields Objects by value, so standard algorithms work).
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = Object;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = Object;

        iterator(const File *f, std::size_t i) : f_(f), i_(i) {}
        Object operator*() const { return (*f_)[i_]; }
        iterator &operator++() {
            ++i_;
            return *this;
        }
        iterator operator++(int) {
            iterator old = *this;
            ++i_;
            return old;
        }
        bool operator!=(const iterator &o) const { return i_ != o.i_; }
        bool operator==(const iterator &o) const { return i_ == o.i_; }

    private:
        const File *f_;
        std::size_t i_;
    };
    iterator begin() const { return iterator(this, 0); }
    iterator end() const { return iterator(this, size()); }

private:
    struct Closer {
        void operator()(zt_file *f) const noexcept { zt_close(f); }
    };
    explicit File(zt_file *f) : h_(f) {}
    std::unique_ptr<zt_file, Closer> h_;
};

// ---------------------------------------------------------------- writing

/// The zt_dtype of an element type (f16/bf16 have no C++ type: give their
/// bytes with the dtype).
template <class T>
constexpr zt_dtype dtype_of() noexcept {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, double>) return ZT_DTYPE_F64;
    else if constexpr (std::is_same_v<U, float>) return ZT_DTYPE_F32;
    else if constexpr (std::is_same_v<U, std::int64_t>) return ZT_DTYPE_I64;
    else if constexpr (std::is_same_v<U, std::int32_t>) return ZT_DTYPE_I32;
    else if constexpr (std::is_same_v<U, std::int16_t>) return ZT_DTYPE_I16;
    else if constexpr (std::is_same_v<U, std::int8_t>) return ZT_DTYPE_I8;
    else if constexpr (std::is_same_v<U, std::uint64_t>) return ZT_DTYPE_U64;
    else if constexpr (std::is_same_v<U, std::uint32_t>) return ZT_DTYPE_U32;
    else if constexpr (std::is_same_v<U, std::uint16_t>) return ZT_DTYPE_U16;
    else if constexpr (std::is_same_v<U, std::uint8_t>) return ZT_DTYPE_U8;
    else if constexpr (std::is_same_v<U, bool>) return ZT_DTYPE_BOOL;
    else static_assert(sizeof(U) == 0, "zt::dtype_of: no zTensor dtype for this type");
}

/// One attribute value, owning its strings: bool, integers, floating
/// point, text; `Attribute::cbor(bytes)` for one pre-encoded CBOR item.
class Attribute {
public:
    template <class V>
    Attribute(std::string key, const V &v) : key_(std::move(key)) {
        std::memset(&a_, 0, sizeof a_);
        if constexpr (std::is_same_v<V, bool>) {
            a_.kind = ZT_ATTR_BOOL;
            a_.bool_value = v;
        } else if constexpr (std::is_integral_v<V> && std::is_signed_v<V>) {
            a_.kind = ZT_ATTR_INT;
            a_.int_value = v;
        } else if constexpr (std::is_integral_v<V>) {
            a_.kind = ZT_ATTR_UINT;
            a_.uint_value = v;
        } else if constexpr (std::is_floating_point_v<V>) {
            a_.kind = ZT_ATTR_FLOAT;
            a_.float_value = static_cast<double>(v);
        } else if constexpr (std::is_same_v<V, std::nullptr_t>) {
            a_.kind = ZT_ATTR_NULL;
        } else {
            static_assert(std::is_convertible_v<const V &, std::string_view>, "zt::Attribute: unsupported value type");
            a_.kind = ZT_ATTR_TEXT;
            bytes_ = std::string(std::string_view(v));
        }
    }

    /// One pre-encoded CBOR data item (an array, a map, ...).
    static Attribute cbor(std::string key, std::string_view bytes) {
        Attribute a(std::move(key), nullptr);
        a.a_.kind = ZT_ATTR_CBOR;
        a.bytes_ = std::string(bytes);
        return a;
    }

    /// The C view: valid while this Attribute lives unchanged.
    const zt_write_attribute &c() {
        a_.key = key_.data();
        a_.key_len = key_.size();
        a_.data = bytes_.data();
        a_.data_len = bytes_.size();
        return a_;
    }

private:
    std::string key_, bytes_;
    zt_write_attribute a_;
};

/// Options of one object (builder): encoding, digest, logical type, attributes.
class WriteOptions {
public:
    WriteOptions() { std::memset(&o_, 0, sizeof o_); }

    /// zstd compression (level 0: the default, 3).
    WriteOptions &zstd(int level = 0) {
        o_.encoding = ZT_ENCODING_ZSTD;
        o_.zstd_level = level;
        return *this;
    }
    /// zt.zstd-seekable/1 (format v2 writers; level 0: the default, 3).
    WriteOptions &zstd_seekable(int level = 0) {
        o_.encoding = ZT_ENCODING_ZSTD_SEEKABLE;
        o_.zstd_level = level;
        return *this;
    }
    WriteOptions &digest(zt_digest d) {
        o_.digest = d;
        return *this;
    }
    WriteOptions &logical_type(std::string_view t) {
        logical_ = std::string(t);
        return *this;
    }
    template <class V>
    WriteOptions &attribute(std::string key, const V &v) {
        attrs_.emplace_back(std::move(key), v);
        return *this;
    }
    WriteOptions &attribute(Attribute a) {
        attrs_.push_back(std::move(a));
        return *this;
    }

    /// The C options: valid while this WriteOptions lives unchanged.
    const zt_write_options *c() {
        c_attrs_.clear();
        for (Attribute &a : attrs_) c_attrs_.push_back(a.c());
        o_.logical_type = logical_.empty() ? nullptr : logical_.data();
        o_.logical_type_len = logical_.size();
        o_.attributes = c_attrs_.data();
        o_.attribute_count = c_attrs_.size();
        return &o_;
    }

private:
    zt_write_options o_;
    std::string logical_;
    std::vector<Attribute> attrs_;
    std::vector<zt_write_attribute> c_attrs_;
};

/// File-wide options of a new Writer (builder over zt_writer_options):
/// format version (v2 by default), canonical form, alignment, digest,
/// compression, shards. Writer::create refuses combinations the version
/// cannot write (zt::Error, ZT_ERR_INVALID_ARGUMENT).
class WriterOptions {
public:
    WriterOptions() { zt_writer_options_init(&o_); }

    /// zTensor format v2 (the default): canonical form (§6.3) unless an
    /// option below that canonical form excludes is set.
    WriterOptions &v2() {
        o_.format_version = ZT_FORMAT_VERSION_2;
        return *this;
    }
    /// zTensor v1.2, for readers of the 1.x generation.
    WriterOptions &v1_2() {
        o_.format_version = ZT_FORMAT_VERSION_1_2;
        return *this;
    }
    /// Require canonical form (true) or not (false).
    WriterOptions &canonical(bool yes = true) {
        o_.canonical = yes ? ZT_CANONICAL_YES : ZT_CANONICAL_NO;
        return *this;
    }
    /// v2: blobs at multiples of `bytes` (a power of two from 4096 to 1 GiB).
    WriterOptions &alignment(std::uint64_t bytes) {
        o_.alignment = bytes;
        return *this;
    }
    WriterOptions &digest(zt_writer_digest d) {
        o_.digest = d;
        return *this;
    }
    /// Compress objects that do not choose: zstd (v1.2) or
    /// zt.zstd-seekable/1 in frames of `frame_size` bytes (v2; 0: 1 MiB).
    WriterOptions &compress(int level = 0, std::uint32_t frame_size = 0) {
        compress_ = true;
        o_.compression_level = level;
        o_.frame_size = frame_size;
        return *this;
    }
    /// v2: data shards of at most `max_bytes` beside the root.
    WriterOptions &shards(std::uint64_t max_bytes) {
        o_.shard_size = max_bytes;
        return *this;
    }

    /// The C options: valid while this WriterOptions lives unchanged.
    const zt_writer_options *c() {
        if (compress_)
            o_.compression =
                o_.format_version == ZT_FORMAT_VERSION_1_2 ? ZT_ENCODING_ZSTD : ZT_ENCODING_ZSTD_SEEKABLE;
        return &o_;
    }

private:
    zt_writer_options o_;
    bool compress_ = false;
};

/// One component for Writer::add_object / add_quantized_group (borrows `data`).
inline zt_write_component component(std::string_view role, zt_dtype dtype, const void *data, std::size_t len,
                                    std::string_view logical_type = {}) {
    return zt_write_component{role.data(), role.size(), static_cast<std::uint32_t>(dtype),
                              logical_type.empty() ? nullptr : logical_type.data(), logical_type.size(), data, len};
}

/// A typed component (the dtype follows from T).
template <class T>
zt_write_component component(std::string_view role, const std::vector<T> &v, std::string_view logical_type = {}) {
    return component(role, dtype_of<T>(), v.data(), v.size() * sizeof(T), logical_type);
}

/// A new file, published atomically by finish(). Move-only; destroyed
/// unfinished, it aborts (the temporary file is removed, nothing appears).
/// Every add copies or writes the data before returning.
class Writer {
public:
    /// Format v2 in canonical form (objects in ascending name order).
    static Writer create(const std::string &path) {
        zt_writer *w = nullptr;
        check(zt_writer_create(path.c_str(), &w));
        return Writer(w);
    }

    /// A writer with file-wide options (v1.2, non-canonical v2, ...).
    static Writer create(const std::string &path, WriterOptions opts) {
        zt_writer *w = nullptr;
        check(zt_writer_create_with_options(path.c_str(), opts.c(), &w));
        return Writer(w);
    }

    Writer(Writer &&o) noexcept : w_(std::exchange(o.w_, nullptr)) {}
    Writer &operator=(Writer &&o) noexcept {
        if (this != &o) {
            abort();
            w_ = std::exchange(o.w_, nullptr);
        }
        return *this;
    }
    Writer(const Writer &) = delete;
    Writer &operator=(const Writer &) = delete;
    ~Writer() { abort(); }

    /// Whether the writer is still open (not finished, aborted or moved from).
    explicit operator bool() const noexcept { return w_ != nullptr; }
    zt_writer *handle() noexcept { return w_; }

    /// A dense tensor from little-endian bytes.
    void add_dense(std::string_view name, zt_dtype dtype, const std::vector<std::uint64_t> &shape, const void *data,
                   std::size_t len, WriteOptions opts = {}) {
        check(zt_writer_add_dense(live(), name.data(), name.size(), dtype, shape.data(), shape.size(), data, len,
                                  opts.c()));
    }

    /// A dense tensor from typed elements.
    template <class T>
    void add_dense(std::string_view name, const std::vector<std::uint64_t> &shape, const std::vector<T> &data,
                   WriteOptions opts = {}) {
        add_dense(name, dtype_of<T>(), shape, data.data(), data.size() * sizeof(T), std::move(opts));
    }

    /// A sparse_csr matrix.
    template <class T>
    void add_sparse_csr(std::string_view name, std::uint64_t rows, std::uint64_t cols, const std::vector<T> &values,
                        const std::vector<std::uint64_t> &indices, const std::vector<std::uint64_t> &indptr,
                        WriteOptions opts = {}) {
        check(zt_writer_add_sparse_csr(live(), name.data(), name.size(), dtype_of<T>(), rows, cols, values.data(),
                                       values.size() * sizeof(T), indices.data(), indices.size(), indptr.data(),
                                       indptr.size(), opts.c()));
    }

    /// A sparse_coo tensor (`coords`: ndim x nnz, dimension by dimension).
    template <class T>
    void add_sparse_coo(std::string_view name, const std::vector<std::uint64_t> &shape, const std::vector<T> &values,
                        const std::vector<std::uint64_t> &coords, WriteOptions opts = {}) {
        check(zt_writer_add_sparse_coo(live(), name.data(), name.size(), dtype_of<T>(), shape.data(), shape.size(),
                                       values.data(), values.size() * sizeof(T), coords.data(), coords.size(),
                                       opts.c()));
    }

    /// A zt.sparse_csr/1 matrix with u32 indices (format v2).
    template <class T>
    void add_sparse_csr_u32(std::string_view name, std::uint64_t rows, std::uint64_t cols,
                            const std::vector<T> &values, const std::vector<std::uint32_t> &indices,
                            const std::vector<std::uint32_t> &indptr, WriteOptions opts = {}) {
        check(zt_writer_add_sparse_csr_u32(live(), name.data(), name.size(), dtype_of<T>(), rows, cols, values.data(),
                                           values.size() * sizeof(T), indices.data(), indices.size(), indptr.data(),
                                           indptr.size(), opts.c()));
    }

    /// A zt.sparse_coo/1 tensor with u32 coordinates (format v2).
    template <class T>
    void add_sparse_coo_u32(std::string_view name, const std::vector<std::uint64_t> &shape,
                            const std::vector<T> &values, const std::vector<std::uint32_t> &coords,
                            WriteOptions opts = {}) {
        check(zt_writer_add_sparse_coo_u32(live(), name.data(), name.size(), dtype_of<T>(), shape.data(),
                                           shape.size(), values.data(), values.size() * sizeof(T), coords.data(),
                                           coords.size(), opts.c()));
    }

    /// A zt.quant_group/1 tensor (format v2); `zeros` only for the tensor zero points.
    void add_quant_group(std::string_view name, const std::vector<std::uint64_t> &shape,
                         const zt_quant_group_params &params, const zt_write_component &data,
                         const zt_write_component &scales, const zt_write_component *zeros = nullptr,
                         WriteOptions opts = {}) {
        check(zt_writer_add_quant_group(live(), name.data(), name.size(), shape.data(), shape.size(), &params, &data,
                                        &scales, zeros, opts.c()));
    }

    /// A zt.mx/1 tensor (format v2); `axis` -1: the last.
    void add_mx(std::string_view name, const std::vector<std::uint64_t> &shape, std::uint64_t block_size,
                const zt_write_component &data, const zt_write_component &scales, std::int64_t axis = -1,
                WriteOptions opts = {}) {
        check(zt_writer_add_mx(live(), name.data(), name.size(), shape.data(), shape.size(), block_size, axis, &data,
                               &scales, opts.c()));
    }

    /// A gguf.<type>/1 tensor of ggml blocks (format v2).
    void add_gguf(std::string_view name, std::string_view type, const std::vector<std::uint64_t> &shape,
                  std::uint64_t elems_per_block, std::uint64_t block_bytes, const void *blocks, std::size_t len,
                  WriteOptions opts = {}) {
        check(zt_writer_add_gguf(live(), name.data(), name.size(), type.data(), type.size(), shape.data(),
                                 shape.size(), elems_per_block, block_bytes, blocks, len, opts.c()));
    }

    /// A quantized_group tensor.
    void add_quantized_group(std::string_view name, const std::vector<std::uint64_t> &shape,
                             const zt_write_component &packed_weight, const zt_write_component &scales,
                             const zt_write_component &zeros, std::uint64_t bits, std::uint64_t group_size,
                             std::string_view packing, WriteOptions opts = {}) {
        check(zt_writer_add_quantized_group(live(), name.data(), name.size(), shape.data(), shape.size(),
                                            &packed_weight, &scales, &zeros, bits, group_size, packing.data(),
                                            packing.size(), opts.c()));
    }

    /// An object of any format.
    void add_object(std::string_view name, std::string_view format, const std::vector<std::uint64_t> &shape,
                    const std::vector<zt_write_component> &components, WriteOptions opts = {}) {
        check(zt_writer_add_object(live(), name.data(), name.size(), format.data(), format.size(), shape.data(),
                                   shape.size(), components.data(), components.size(), opts.c()));
    }

    /// A file-level attribute (bool, integer, floating point, text, nullptr).
    template <class V>
    void set_attribute(std::string key, const V &v) {
        set_attribute(Attribute(std::move(key), v));
    }
    void set_attribute(Attribute a) { check(zt_writer_set_attribute(live(), &a.c())); }

    /// Publish the file. The writer is closed afterwards, even when this throws.
    void finish() { check(zt_writer_finish(std::exchange(w_, nullptr))); }

    /// Discard the file (nothing is published). Does nothing when closed.
    void abort() noexcept { zt_writer_abort(std::exchange(w_, nullptr)); }

private:
    explicit Writer(zt_writer *w) : w_(w) {}
    zt_writer *live() const {
        if (!w_) throw Error(ZT_ERR_INVALID_ARGUMENT, "zt::Writer: the writer is finished, aborted or moved from");
        return w_;
    }
    zt_writer *w_ = nullptr;
};

}  // namespace zt

#endif /* ZTENSOR_HPP */
