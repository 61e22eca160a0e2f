/*
 * cpp_test: what a C++ engine expects of ztensor.hpp, on a mixed-dtype model.
 *
 *     cpp_test OUT.zt [SHARDED.zt]
 *
 * Writes OUT.zt, v1.2 (dense f32 raw and zstd, f16, bf16, i8, u8, bool, f64, FP8
 * e4m3fn and e5m2, a CSR matrix) with zt::Writer, then checks through
 * zt::File: try_view<T> is empty (never throws) for every reason a view is
 * unavailable; dtype(), numel(); read<T>() typed and converted to float /
 * double; File::iterator works with standard algorithms; error messages
 * carry the library's text once (no doubled "not found: not found").
 * OUT.zt stays for the README quick-start test. SHARDED.zt, a v2 root
 * whose objects a, b, c live in data shards and `local` in the root
 * (tests/fixtures/v2/sharded/model.zt): try_view is empty for the parts
 * in shards, and read<T> reads them.
 *
 * Exit status: 0 when every check passes, 1 otherwise, 2 on a usage error.
 */
#include <ztensor.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

static int checks, failures;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        checks++;                                                                        \
        if (!(cond)) {                                                                   \
            failures++;                                                                  \
            std::fprintf(stderr, "cpp_test.cpp:%d: check failed: %s\n", __LINE__, #cond); \
        }                                                                                \
    } while (0)

/* The zt::Error `f` throws (status ZT_OK and no text when it does not). */
template <class F>
static std::pair<zt_status, std::string> error_of(F f) {
    try {
        f();
    } catch (const zt::Error &e) {
        return {e.status(), e.what()};
    }
    return {ZT_OK, ""};
}

/* A message that repeats its status text ("not found: not found ..."). */
static bool doubled(zt_status s, const std::string &what) {
    std::string st = zt_status_str(s);
    return what.find(st + ": " + st) != std::string::npos;
}

static_assert(std::is_same_v<std::iterator_traits<zt::File::iterator>::value_type, zt::Object>);
static_assert(std::is_base_of_v<std::input_iterator_tag,
                                std::iterator_traits<zt::File::iterator>::iterator_category>);

static void write_model(const std::string &path) {
    zt::Writer w = zt::Writer::create(path, zt::WriterOptions().v1_2()); /* objects zstd, in any order */
    w.add_dense<float>("f32", {4}, {1.0f, -2.0f, 0.5f, 3.0f});
    w.add_dense<float>("zstd", {2, 2}, {1.0f, 2.0f, 3.0f, 4.0f}, zt::WriteOptions().zstd().digest(ZT_DIGEST_SHA256));
    const std::uint16_t f16[3] = {0x3c00, 0xc000, 0x3800}; /* 1, -2, 0.5 */
    w.add_dense("f16", ZT_DTYPE_F16, {3}, f16, sizeof f16);
    const std::uint16_t bf16[2] = {0x3f80, 0xc040}; /* 1, -3 */
    w.add_dense("bf16", ZT_DTYPE_BF16, {2}, bf16, sizeof bf16);
    w.add_dense<std::int8_t>("i8", {3}, {-128, 0, 127});
    w.add_dense<std::uint8_t>("u8", {2}, {0, 255});
    const std::uint8_t mask[3] = {1, 0, 1};
    w.add_dense("mask", ZT_DTYPE_BOOL, {3}, mask, sizeof mask);
    w.add_dense<double>("f64", {2}, {0.25, -1e300});
    const std::uint8_t e4m3[3] = {0x38, 0x7e, 0xb8}; /* 1, 448, -1 */
    w.add_dense("fp8", ZT_DTYPE_U8, {3}, e4m3, sizeof e4m3, zt::WriteOptions().logical_type("f8_e4m3fn"));
    const std::uint8_t e5m2[2] = {0x3c, 0x7c}; /* 1, inf */
    w.add_dense("fp8_e5m2", ZT_DTYPE_U8, {2}, e5m2, sizeof e5m2, zt::WriteOptions().logical_type("f8_e5m2"));
    w.add_sparse_csr<float>("csr", 2, 3, {5.0f, 6.0f}, {0, 2}, {0, 1, 2});
    w.finish();
}

static void check_reads(const zt::File &f, bool positional) {
    /* try_view: a value only for raw f32 data in memory; empty otherwise. */
    for (zt::Object o : f) {
        std::optional<zt::Span<const float>> v;
        zt_status s = error_of([&] { v = o.try_view<float>(); }).first;
        CHECK(s == ZT_OK);
        bool expect = o.name() == "f32" && !positional;
        CHECK(v.has_value() == expect);
    }
    CHECK(!f.at("f32").try_view<std::int32_t>());           /* dtype mismatch */
    CHECK(!f.at("csr").try_view<float>());                  /* no "data" component */
    CHECK(f.at("csr").try_view<float>("values").has_value() == !positional);
    CHECK(!f.at("zstd").try_view<float>());                 /* compressed */
    CHECK(f.at("i8").try_view<std::int8_t>().has_value() == !positional);

    /* dtype, numel */
    CHECK(f.at("f16").dtype() == ZT_DTYPE_F16);
    CHECK(f.at("fp8").dtype() == ZT_DTYPE_U8);
    CHECK(f.at("csr").dtype("indices") == ZT_DTYPE_U64);
    CHECK(f.at("zstd").numel() == 4);
    CHECK(f.at("csr").numel() == 6);

    /* read_range_into: the middle two floats, raw and zstd; past the end refused */
    float mid[2] = {0, 0};
    CHECK(f.at("f32").read_range_into(4, mid, sizeof mid) == sizeof mid);
    CHECK(mid[0] == -2.0f && mid[1] == 0.5f);
    CHECK(f.at("zstd").read_range_into(8, mid, sizeof mid) == sizeof mid);
    CHECK(mid[0] == 3.0f && mid[1] == 4.0f);
    CHECK(error_of([&] { f.at("f32").read_range_into(12, mid, sizeof mid); }).first == ZT_ERR_INVALID_ARGUMENT);

    /* read<float>: every storage type converted */
    CHECK((f.at("f32").read<float>() == std::vector<float>{1.0f, -2.0f, 0.5f, 3.0f}));
    CHECK((f.at("zstd").read<float>() == std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}));
    CHECK((f.at("f16").read<float>() == std::vector<float>{1.0f, -2.0f, 0.5f}));
    CHECK((f.at("bf16").read<float>() == std::vector<float>{1.0f, -3.0f}));
    CHECK((f.at("i8").read<float>() == std::vector<float>{-128.0f, 0.0f, 127.0f}));
    CHECK((f.at("u8").read<float>() == std::vector<float>{0.0f, 255.0f}));
    CHECK((f.at("mask").read<float>() == std::vector<float>{1.0f, 0.0f, 1.0f}));
    CHECK((f.at("fp8").read<float>() == std::vector<float>{1.0f, 448.0f, -1.0f}));
    std::vector<float> e5 = f.at("fp8_e5m2").read<float>();
    CHECK(e5.size() == 2 && e5[0] == 1.0f && std::isinf(e5[1]));
    std::vector<float> narrow = f.at("f64").read<float>();
    CHECK(narrow.size() == 2 && narrow[0] == 0.25f && std::isinf(narrow[1]) && narrow[1] < 0);
    CHECK((f.at("csr").read<float>("values") == std::vector<float>{5.0f, 6.0f}));
    CHECK((f.at("f64").read<double>() == std::vector<double>{0.25, -1e300}));
    CHECK((f.at("f16").read<double>() == std::vector<double>{1.0, -2.0, 0.5}));

    /* read<T> for other types: the dtype must match */
    CHECK((f.at("i8").read<std::int8_t>() == std::vector<std::int8_t>{-128, 0, 127}));
    CHECK((f.at("f16").read<std::uint16_t>() == std::vector<std::uint16_t>{0x3c00, 0xc000, 0x3800}));
    CHECK((f.at("csr").read<std::uint64_t>("indptr") == std::vector<std::uint64_t>{0, 1, 2}));
    CHECK(error_of([&] { f.at("f32").read<std::int32_t>(); }).first == ZT_ERR_INVALID_ARGUMENT);
    CHECK(error_of([&] { f.at("csr").read<float>(); }).first == ZT_ERR_NOT_FOUND);

    /* standard algorithms over File::iterator */
    auto dense = std::count_if(f.begin(), f.end(), [](zt::Object o) { return o.format() == "dense"; });
    CHECK(dense == 10);
    std::vector<std::string> names;
    std::transform(f.begin(), f.end(), std::back_inserter(names),
                   [](zt::Object o) { return std::string(o.name()); });
    CHECK(names.size() == f.size() && names.front() == "f32" && names.back() == "csr");
    auto it = std::find_if(f.begin(), f.end(), [](zt::Object o) { return o.name() == "bf16"; });
    CHECK(it != f.end() && (*it).index() == 3);
}

static void check_errors(const zt::File &f, const std::string &dir) {
    /* The message is the library's, once: what() is zt_last_error(). */
    auto [s, what] = error_of([&] { f.at("nope"); });
    CHECK(s == ZT_ERR_NOT_FOUND);
    CHECK(!doubled(s, what));
    CHECK(what == zt_last_error());
    CHECK(what.find("nope") != std::string::npos);

    std::tie(s, what) = error_of([&] { zt::File::open(dir + "/no-such-dir/model.zt"); });
    CHECK(s == ZT_ERR_IO);
    CHECK(!doubled(s, what));
    CHECK(what == zt_last_error());

    std::tie(s, what) = error_of([&] { f.at("f32").component("nope"); });
    CHECK(s == ZT_ERR_NOT_FOUND);
    CHECK(!doubled(s, what));
    CHECK(what == zt_last_error());
}

/* Parts in v2 data shards are outside the mapping: no view, not an error. */
static void check_shards(const std::string &root) {
    zt::File f = zt::File::open(root);
    std::optional<zt::Span<const float>> v;
    zt_status s = error_of([&] { v = f.at("a").try_view<float>(); }).first;
    CHECK(s == ZT_OK);
    CHECK(!v);
    CHECK(f.at("a").read<float>().size() == 4);
    CHECK(f.at("local").try_view<double>().has_value());
}

/* zt::File::from_source: the file's bytes in a vector, read by callbacks;
 * reads as positional mode does, and `close` runs once, at destruction. */
static void check_source(const std::string &path) {
    struct Bytes {
        std::vector<unsigned char> v;
        int closed = 0;
    } b;
    std::FILE *in = std::fopen(path.c_str(), "rb");
    CHECK(in != nullptr);
    if (!in) return;
    for (int c; (c = std::fgetc(in)) != EOF;) b.v.push_back(static_cast<unsigned char>(c));
    std::fclose(in);
    zt_source src{};
    src.struct_size = sizeof src;
    src.ctx = &b;
    src.size = b.v.size();
    src.read_at = [](void *ctx, std::uint64_t off, void *buf, std::size_t len) -> int {
        auto *p = static_cast<Bytes *>(ctx);
        if (off > p->v.size() || len > p->v.size() - off) return 1;
        std::copy_n(p->v.data() + off, len, static_cast<unsigned char *>(buf));
        return 0;
    };
    src.close = [](void *ctx) { static_cast<Bytes *>(ctx)->closed++; };
    {
        zt::File f = zt::File::from_source(src);
        check_reads(f, true);
        f.verify();
    }
    CHECK(b.closed == 1);
}

/* File::load: every object's first part on 2 threads equals read();
 * a request for a role the object lacks fails alone, and load() throws its error. */
static void check_load(const zt::File &f) {
    std::vector<std::vector<std::byte>> bufs;
    std::vector<zt_load_request> reqs;
    for (zt::Object o : f) bufs.push_back(o.read(o.component_at(0).role()));
    for (std::size_t i = 0; i < f.size(); i++) {
        std::fill(bufs[i].begin(), bufs[i].end(), std::byte{0});
        reqs.push_back(zt::File::request(f[i], f[i].component_at(0).role(), bufs[i].data(), bufs[i].size()));
    }
    f.load(reqs, 2);
    for (std::size_t i = 0; i < f.size(); i++) {
        CHECK(reqs[i].status == ZT_OK);
        CHECK(bufs[i] == f[i].read(f[i].component_at(0).role()));
    }
    std::vector<std::byte> spare(bufs[0].size());
    reqs.push_back(zt::File::request(f[0], "no-such-part", spare.data(), spare.size()));
    auto [s, msg] = error_of([&] { f.load(reqs, 2); });
    CHECK(s == ZT_ERR_NOT_FOUND);
    CHECK(msg.find("no-such-part") != std::string::npos);
    CHECK(reqs.back().status == ZT_ERR_NOT_FOUND && reqs.front().status == ZT_OK);
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        std::fprintf(stderr, "usage: cpp_test OUT.zt [SHARDED.zt]\n");
        return 2;
    }
    const std::string path = argv[1];
    const std::string dir = path.substr(0, path.find_last_of('/') + 1);
    try {
        write_model(path);
        zt::File f = zt::File::open(path);
        CHECK(f.size() == 11);
        check_reads(f, false);
        check_errors(f, dir);
        f.verify();
        check_load(f);
        check_reads(zt::File::open(path, ZT_OPEN_POSITIONAL), true);
        check_source(path);
        if (argc == 3) check_shards(argv[2]);
    } catch (const zt::Error &e) {
        std::fprintf(stderr, "cpp_test: unexpected error: %s\n", e.what());
        return 1;
    }
    std::printf("cpp_test: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
