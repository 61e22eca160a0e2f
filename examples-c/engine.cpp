// engine: load every weight of a zTensor file the way an inference engine
// does, through the C++ wrapper (include/ztensor.hpp).
//
//     engine [--positional] [--verify] [--threads N] FILE
//
// 1. Plan: walk the manifest, ask each component's decoded size, and lay
//    every tensor out in one 64-byte-aligned arena (the "device buffer").
// 2. Load: N threads decode components into their slots concurrently,
//    sharing one zt::File (a handle is safe to read from many threads).
// 3. Zero-copy: for raw components of a mapped file, take a typed span
//    straight into the mapping (no copy; 64-byte aligned) and check it
//    against the loaded copy. Compressed ones are reported as copies.
// 4. Look every tensor up again by name, as a model's layers do.
// 5. With --verify, check digests and data rules.
//
// Exit status: 0 on success, 1 on any zt::Error (printed on stderr), 2 on
// a usage error.
#include <ztensor.hpp>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kAlign = 64;

struct Slot {
    std::size_t object;
    std::string role;
    std::size_t offset;  // in the arena
    std::size_t size;    // decoded bytes
};

struct Arena {
    explicit Arena(std::size_t n) : size(n) {
        data = static_cast<std::byte *>(::operator new(n ? n : 1, std::align_val_t(kAlign)));
    }
    ~Arena() { ::operator delete(data, std::align_val_t(kAlign)); }
    Arena(const Arena &) = delete;
    Arena &operator=(const Arena &) = delete;
    std::byte *data;
    std::size_t size;
};

// Sum of the elements of a typed span: touches every byte, as a first layer would.
template <class T>
double sum(zt::Span<const T> s) {
    double acc = 0;
    for (T v : s)
        if (std::isfinite(static_cast<double>(v))) acc += static_cast<double>(v);
    return acc;
}

int run(const std::string &path, std::uint32_t flags, bool verify, unsigned threads) {
    zt::File file = zt::File::open(path, flags);
    const bool mapped = file.info().mode == ZT_MODE_MMAP;

    // 1. Plan the arena.
    std::vector<Slot> slots;
    std::size_t arena_size = 0;
    for (zt::Object o : file) {
        std::size_t n = o.component_count();
        for (std::size_t k = 0; k < n; k++) {
            zt::Component c = o.component_at(k);
            std::size_t size = o.decoded_size(c.role());  // checked: safe to allocate
            arena_size = (arena_size + kAlign - 1) / kAlign * kAlign;
            slots.push_back(Slot{o.index(), std::string(c.role()), arena_size, size});
            arena_size += size;
        }
    }
    Arena arena(arena_size);

    // 2. Load with several threads sharing the file.
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; t++) {
        pool.emplace_back([&, t] {
            try {
                for (std::size_t i; (i = next.fetch_add(1)) < slots.size();) {
                    const Slot &s = slots[i];
                    std::size_t n = file[s.object].read_into(arena.data + s.offset, s.size, s.role);
                    if (n != s.size) throw zt::Error(ZT_ERR_CORRUPT_DATA, "short read of " + s.role);
                }
            } catch (...) {
                errors[t] = std::current_exception();
            }
        });
    }
    for (std::thread &th : pool) th.join();
    for (std::exception_ptr &e : errors)
        if (e) std::rethrow_exception(e);

    // 3. Zero-copy views, checked against the loaded copy.
    std::size_t zero_copy = 0, copied = 0;
    double checksum = 0;
    for (const Slot &s : slots) {
        zt::Object o = file[s.object];
        zt::Component c = o.component(s.role);
        auto view = o.try_view<std::byte>(s.role);
        if (!view) {
            copied++;
            continue;
        }
        if (view->size() != s.size || (view->size() && std::memcmp(view->data(), arena.data + s.offset, s.size) != 0))
            throw zt::Error(ZT_ERR_CORRUPT_DATA, "zero-copy view differs from the decoded copy: " + s.role);
        if (mapped && reinterpret_cast<std::uintptr_t>(view->data()) % kAlign != 0)
            throw zt::Error(ZT_ERR_CORRUPT_DATA, "zero-copy view is not 64-byte aligned: " + s.role);
        if (c.dtype() == ZT_DTYPE_F32)
            checksum += sum(o.view<float>(s.role));
        else if (c.dtype() == ZT_DTYPE_F64)
            checksum += sum(o.view<double>(s.role));
        else if (c.dtype() == ZT_DTYPE_I64)
            checksum += sum(o.view<std::int64_t>(s.role));
        zero_copy++;
    }

    // 4. Every tensor again by name.
    for (zt::Object o : file) {
        std::string name(o.name());
        std::optional<zt::Object> again = file.find(name);
        if (!again || again->index() != o.index())
            throw zt::Error(ZT_ERR_NOT_FOUND, "lookup by name failed for object " + std::to_string(o.index()));
    }

    // 5. Deep check.
    if (verify) file.verify();

    std::printf("%s: %zu tensors, %zu components, %zu bytes in a 64-byte-aligned arena (%u threads); "
                "%zu zero-copy views, %zu decoded copies; checksum %.6g%s\n",
                path.c_str(), file.size(), slots.size(), arena_size, threads, zero_copy, copied, checksum,
                verify ? "; verified" : "");
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    std::uint32_t flags = 0;
    bool verify = false;
    unsigned threads = 2;
    std::string path;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--positional")
            flags |= ZT_OPEN_POSITIONAL;
        else if (a == "--verify")
            verify = true;
        else if (a == "--threads" && i + 1 < argc)
            threads = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
        else if (path.empty() && a.rfind("--", 0) != 0)
            path = a;
        else {
            path.clear();
            break;
        }
    }
    if (path.empty()) {
        std::fprintf(stderr, "usage: engine [--positional] [--verify] [--threads N] FILE\n");
        return 2;
    }
    try {
        return run(path, flags, verify, threads);
    } catch (const zt::Error &e) {
        std::fprintf(stderr, "engine: %s: %s\n", path.c_str(), e.what());
        return 1;
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "engine: %s: out of memory\n", path.c_str());
        return 1;
    }
}
