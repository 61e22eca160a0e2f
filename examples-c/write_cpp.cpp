/*
 * write_cpp: the C++ writer of ztensor.hpp (zt::Writer, zt::WriteOptions),
 * read back with zt::File.
 *
 *     write_cpp DIR
 *
 * Writes DIR/cpp-PID.zt, v1.2 (dense raw and zstd + digest, CSR, COO, quantized_group,
 * a generic object, attributes), checks every value through zt::File, and
 * checks the RAII rules: a Writer destroyed unfinished publishes nothing,
 * errors throw zt::Error with the library's status, a moved-from or
 * finished Writer refuses further use. Then DIR/cpp-PID-v2.zt, format v2
 * through zt::WriterOptions (4 KiB, sha256, zstd-seekable) with every
 * layout helper (u32 sparse indices, quant_group, mx, gguf), read back.
 *
 * Exit status: 0 when every check passes, 1 otherwise, 2 on a usage error.
 */
#include <ztensor.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

static int checks, failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        checks++;                                                                    \
        if (!(cond)) {                                                               \
            failures++;                                                              \
            std::fprintf(stderr, "write_cpp.cpp:%d: check failed: %s\n", __LINE__, #cond); \
        }                                                                            \
    } while (0)

template <class T>
static std::vector<T> as(const std::vector<std::byte> &b) {
    std::vector<T> v(b.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
    return v;
}

/* The status of the zt::Error `f` throws, ZT_OK when it does not throw. */
template <class F>
static zt_status status_of(F f) {
    try {
        f();
    } catch (const zt::Error &e) {
        return e.status();
    }
    return ZT_OK;
}

static bool exists(const std::string &p) { return access(p.c_str(), F_OK) == 0; }

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: write_cpp DIR\n");
        return 2;
    }
    /* Names of this process's own: the valgrind run may run alongside. */
    const std::string base = std::string(argv[1]) + "/cpp-" + std::to_string(getpid());
    const std::string path = base + ".zt", unfinished = base + "-unfinished.zt";
    std::remove(path.c_str());
    std::remove(unfinished.c_str());

    const std::vector<float> w = {1.0f, -2.0f, 0.5f, -0.0f, 3.0f, 1e-40f};
    const std::vector<double> csr_values = {1.0, 2.0, 3.0};
    const std::vector<std::uint64_t> csr_indices = {1, 0, 2}, csr_indptr = {0, 1, 3};
    const std::vector<std::int64_t> coo_values = {-5, 6};
    const std::vector<std::uint64_t> coo_coords = {0, 1, 1, 0};
    const std::vector<std::int32_t> packed = {0x01234567};
    const std::vector<float> scales = {0.25f};
    const std::vector<std::uint8_t> zeros = {8}, fp8 = {0x38, 0xb8};

    try {
        /* v1.2 (per-object zstd and digests, quantized_group, any order). */
        zt::Writer out = zt::Writer::create(path, zt::WriterOptions().v1_2());
        out.add_dense("w", {2, 3}, w, zt::WriteOptions().attribute("layer", 3).attribute("kind", "weight"));
        out.add_dense("w_zstd", {2, 3}, w, zt::WriteOptions().zstd(7).digest(ZT_DIGEST_SHA256));
        out.add_sparse_csr("csr", 2, 3, csr_values, csr_indices, csr_indptr, zt::WriteOptions().digest(ZT_DIGEST_CRC32C));
        out.add_sparse_coo("coo", {2, 2}, coo_values, coo_coords);
        out.add_quantized_group("q", {1, 8}, zt::component("packed_weight", packed), zt::component("scales", scales),
                                zt::component("zeros", zeros), 4, 8, "8_per_i32");
        out.add_object("fp8", "dense", {2}, {zt::component("data", fp8, "f8_e4m3fn")});
        out.add_dense("fp8_opts", {2}, fp8, zt::WriteOptions().logical_type("f8_e5m2"));
        out.set_attribute("framework", "c++");
        out.set_attribute("step", std::uint64_t(1) << 63);
        out.set_attribute("ratio", 0.25);
        out.set_attribute("ok", true);
        out.set_attribute("nothing", nullptr);
        out.set_attribute(zt::Attribute::cbor("pair", std::string_view("\x82\x01\x02", 3)));

        /* Errors carry the library's status; the writer stays usable. */
        CHECK(status_of([&] { out.add_dense("w", {2, 3}, w); }) == ZT_ERR_FORMAT);
        CHECK(status_of([&] { out.add_dense("bad", {4}, w); }) == ZT_ERR_FORMAT);
        CHECK(status_of([&] { out.add_dense("bad", ZT_DTYPE_F32, {6}, nullptr, 24); }) == ZT_ERR_INVALID_ARGUMENT);
        CHECK(status_of([&] { out.set_attribute(zt::Attribute::cbor("bad", "")); }) == ZT_ERR_FORMAT);
        try {
            out.add_dense("w", {2, 3}, w);
        } catch (const zt::Error &e) {
            CHECK(std::strstr(e.what(), "already added") != nullptr);
        }

        /* Move: the moved-from writer is closed. */
        zt::Writer moved = std::move(out);
        CHECK(!out && moved);
        CHECK(status_of([&] { out.add_dense("x", {1}, std::vector<float>{1.0f}); }) == ZT_ERR_INVALID_ARGUMENT);
        CHECK(!exists(path));
        moved.finish();
        CHECK(!moved && exists(path));
        CHECK(status_of([&] { moved.finish(); }) == ZT_ERR_INVALID_ARGUMENT);

        /* Destroyed unfinished: nothing is published. */
        {
            zt::Writer dropped = zt::Writer::create(unfinished);
            dropped.add_dense("x", {1}, std::vector<float>{1.0f});
        }
        CHECK(!exists(unfinished));

        /* Read it all back. */
        zt::File f = zt::File::open(path);
        f.verify();
        CHECK(f.size() == 7);
        CHECK(as<float>(f.at("w").read()) == w);
        CHECK(std::memcmp(f.at("w").view<float>().data(), w.data(), w.size() * sizeof(float)) == 0);
        CHECK(f.at("w").shape() == (std::vector<std::uint64_t>{2, 3}));
        CHECK(as<float>(f.at("w_zstd").read()) == w);
        CHECK(f.at("w_zstd").component().compressed());
        CHECK(f.at("w_zstd").component().digest().substr(0, 7) == "sha256:");
        CHECK(!f.at("w_zstd").try_view<float>());
        zt::Object csr = f.at("csr");
        CHECK(csr.format() == "sparse_csr");
        CHECK(as<double>(csr.read("values")) == csr_values);
        CHECK(as<std::uint64_t>(csr.read("indices")) == csr_indices);
        CHECK(as<std::uint64_t>(csr.read("indptr")) == csr_indptr);
        CHECK(csr.component("indptr").digest().substr(0, 9) == "crc32c:0x");
        CHECK(as<std::int64_t>(f.at("coo").read("values")) == coo_values);
        CHECK(as<std::uint64_t>(f.at("coo").read("coords")) == coo_coords);
        zt::Object q = f.at("q");
        CHECK(q.format() == "quantized_group" && q.component_count() == 3);
        CHECK(as<std::int32_t>(q.read("packed_weight")) == packed);
        CHECK(as<float>(q.read("scales")) == scales);
        CHECK(as<std::uint8_t>(q.read("zeros")) == zeros);
        CHECK(f.at("fp8").component().logical_type() == "f8_e4m3fn");
        CHECK(f.at("fp8_opts").component().logical_type() == "f8_e5m2");
        CHECK(as<std::uint8_t>(f.at("fp8").read()) == fp8);

        zt_attribute a;
        zt_object o = f.at("w").handle();
        CHECK(zt_attribute_find(f.handle(), &o, "layer", ZT_NUL_TERMINATED, &a) == ZT_OK && a.int_value == 3);
        CHECK(zt_attribute_find(f.handle(), &o, "kind", ZT_NUL_TERMINATED, &a) == ZT_OK &&
              zt::sv(reinterpret_cast<const char *>(a.data), a.data_len) == "weight");
        CHECK(zt_attribute_find(f.handle(), nullptr, "framework", ZT_NUL_TERMINATED, &a) == ZT_OK &&
              zt::sv(reinterpret_cast<const char *>(a.data), a.data_len) == "c++");
        CHECK(zt_attribute_find(f.handle(), nullptr, "step", ZT_NUL_TERMINATED, &a) == ZT_OK &&
              a.kind == ZT_VALUE_UINT && a.uint_value == (std::uint64_t(1) << 63));
        CHECK(zt_attribute_find(f.handle(), nullptr, "ratio", ZT_NUL_TERMINATED, &a) == ZT_OK &&
              a.float_value == 0.25);
        CHECK(zt_attribute_find(f.handle(), nullptr, "ok", ZT_NUL_TERMINATED, &a) == ZT_OK && a.bool_value);
        CHECK(zt_attribute_find(f.handle(), nullptr, "nothing", ZT_NUL_TERMINATED, &a) == ZT_OK &&
              a.kind == ZT_VALUE_NULL);
        CHECK(zt_attribute_find(f.handle(), nullptr, "pair", ZT_NUL_TERMINATED, &a) == ZT_OK &&
              a.kind == ZT_VALUE_ARRAY && a.count == 2);
    } catch (const zt::Error &e) {
        std::fprintf(stderr, "write_cpp: unexpected error: %s\n", e.what());
        return 1;
    }
    std::remove(path.c_str());

    /* Format v2 through zt::WriterOptions: every layout helper, read back. */
    const std::string v2path = base + "-v2.zt";
    try {
        const std::vector<std::uint32_t> idx32 = {1, 0, 2}, ptr32 = {0, 1, 3}, coords32 = {0, 1, 1, 0};
        const std::vector<std::uint32_t> q_data = {0x01234567};
        const std::vector<std::int8_t> mx_data(32, -3);
        const std::vector<std::uint8_t> mx_scales = {127};
        std::vector<std::uint8_t> blocks(34);
        for (std::size_t i = 0; i < blocks.size(); i++) blocks[i] = static_cast<std::uint8_t>(i * 7);
        zt::Writer out = zt::Writer::create(
            v2path, zt::WriterOptions().v2().alignment(4096).digest(ZT_WRITER_DIGEST_SHA256).compress(1, 64));
        out.add_dense("w", {2, 3}, w, zt::WriteOptions().attribute("layer", 3));
        out.add_sparse_csr_u32("csr32", 2, 3, csr_values, idx32, ptr32);
        out.add_sparse_coo_u32("coo32", {2, 2}, coo_values, coords32);
        zt_quant_group_params q{};
        q.bits = 4;
        q.group_size = 8;
        q.axis = 1;
        q.word = ZT_DTYPE_U32;
        q.order = ZT_QUANT_LSB_FIRST;
        q.scale_form = ZT_QUANT_F32_FACTORS;
        q.zero_point = ZT_QUANT_ZERO_IMPLIED;
        q.zero_value = 8;
        out.add_quant_group("q", {1, 8}, q, zt::component("data", q_data), zt::component("scales", scales));
        out.add_mx("mx", {1, 32}, 32, zt::component("data", mx_data), zt::component("scales", mx_scales, "f8_e8m0"));
        out.add_gguf("g", "q8_0", {32}, 32, 34, blocks.data(), blocks.size());
        out.set_attribute("framework", "c++");
        /* A v1.2-only call, and options that do not go together. */
        CHECK(status_of([&] {
                  out.add_quantized_group("x", {1, 8}, zt::component("packed_weight", packed),
                                          zt::component("scales", scales), zt::component("zeros", zeros), 4, 8,
                                          "8_per_i32");
              }) == ZT_ERR_INVALID_ARGUMENT);
        CHECK(status_of([&] { zt::Writer::create(base + "-bad.zt", zt::WriterOptions().v2().canonical().alignment(4096)); }) ==
              ZT_ERR_INVALID_ARGUMENT);
        CHECK(status_of([&] { zt::Writer::create(base + "-bad.zt", zt::WriterOptions().v1_2().shards(1 << 20)); }) ==
              ZT_ERR_INVALID_ARGUMENT);
        out.finish();

        zt::File f = zt::File::open(v2path);
        f.verify();
        CHECK(f.size() == 6);
        CHECK(as<float>(f.at("w").read()) == w);
        CHECK(f.at("w").component().digest().substr(0, 7) == "sha256:");
        CHECK(f.at("w").component().compressed());
        CHECK(as<std::uint32_t>(f.at("csr32").read("indices")) == idx32);
        CHECK(as<std::uint32_t>(f.at("csr32").read("indptr")) == ptr32);
        CHECK(as<double>(f.at("csr32").read("values")) == csr_values);
        CHECK(as<std::uint32_t>(f.at("coo32").read("coords")) == coords32);
        CHECK(f.at("q").format() == "zt.quant_group/1");
        CHECK(as<std::uint32_t>(f.at("q").read("data")) == q_data);
        CHECK(as<float>(f.at("q").read("scales")) == scales);
        CHECK(f.at("mx").format() == "zt.mx/1");
        CHECK(as<std::int8_t>(f.at("mx").read("data")) == mx_data);
        CHECK(as<std::uint8_t>(f.at("mx").read("scales")) == mx_scales);
        CHECK(f.at("g").format() == "gguf.q8_0/1");
        CHECK(as<std::uint8_t>(f.at("g").read()) == blocks);
    } catch (const zt::Error &e) {
        std::fprintf(stderr, "write_cpp: unexpected error (v2): %s\n", e.what());
        return 1;
    }
    std::remove(v2path.c_str());
    std::printf("write_cpp: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
