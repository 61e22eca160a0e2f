#include <ztensor.hpp>
#include <algorithm>
#include <cstdio>

int main(int argc, char **argv) {
    try {
        zt::File f = zt::File::open(argc > 1 ? argv[1] : "model.zt");
        for (zt::Object o : f) {
            double sum = 0;
            if (auto w = o.try_view<float>())            // zero-copy when raw f32, else empty
                for (float x : *w) sum += x;
            else if (o.format() == "dense")              // f16, bf16, FP8, ints, zstd: decoded to float
                for (float x : o.read<float>()) sum += x;
            std::printf("%.*s: %llu elements, sum %g\n", (int)o.name().size(), o.name().data(),
                        (unsigned long long)o.numel(), sum);
        }
        auto dense = std::count_if(f.begin(), f.end(), [](zt::Object o) { return o.format() == "dense"; });
        std::printf("%td of %zu objects are dense\n", dense, f.size());
    } catch (const zt::Error &e) {                       // e.status(), e.what(): the library's message
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
