/* test_sha256.c: FIPS 180-4 example vectors, a million 'a', and messages whose padding
 * crosses a block boundary (55, 56, 63, 64, 65 bytes; digests from coreutils sha256sum). */
#include <stdlib.h>

#include "check.h"
#include "util/sha256.h"

static const char *hex_of(const char *s, size_t n)
{
    static char hex[65];
    sha256_hex(s, n, hex);
    return hex;
}

int main(void)
{
    EXPECT_STR(hex_of("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_STR(hex_of("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    EXPECT_STR(hex_of(m448, strlen(m448)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    EXPECT_STR(hex_of(a, 1000000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    memset(a, 'x', 65);
    EXPECT_STR(hex_of(a, 55), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
    EXPECT_STR(hex_of(a, 56), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
    EXPECT_STR(hex_of(a, 63), "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2");
    EXPECT_STR(hex_of(a, 64), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
    EXPECT_STR(hex_of(a, 65), "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9");
    free(a);
    return CHECK_DONE();
}
