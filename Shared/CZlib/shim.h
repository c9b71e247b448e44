// zlib (Debian's zlib1g-dev), for the gzip of activity packs.
#include <zlib.h>
