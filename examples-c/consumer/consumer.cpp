// Minimal C++ user of an installed libztensor (header-only wrapper).
#include <ztensor.hpp>
#include <cstdio>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    try {
        zt::File f = zt::File::open(argv[1]);
        std::size_t bytes = 0;
        for (zt::Object o : f)
            for (std::size_t k = 0; k < o.component_count(); k++) bytes += o.read(o.component_at(k).role()).size();
        std::printf("%zu objects, %zu bytes\n", f.size(), bytes);
    } catch (const zt::Error &e) {
        std::fprintf(stderr, "consumer_cpp: %s\n", e.what());
        return 1;
    }
    return 0;
}
