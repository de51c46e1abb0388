/* sha256.h: SHA-256 (FIPS 180-4) of a buffer, as lowercase hex; identifies the scenario
 * source a run used, so a rerun can prove it ran the same script. */
#ifndef SR_SHA256_H
#define SR_SHA256_H

#include <stddef.h>
#include <stdint.h>

void sha256(const void *data, size_t n, uint8_t digest[32]);
void sha256_hex(const void *data, size_t n, char hex[65]);

#endif
