/* test_quant.c: the number formats and packers of the compression family, bit by bit, against
 * vectors computed by hand: FP16 and BF16 (round to nearest even, overflow, subnormals, NaN),
 * FP8 E4M3 (saturation at 448, NaN, subnormals, ties), FP4 E2M1, E8M0 scales, int4 nibbles;
 * every code of FP16, E4M3 and E2M1 round-trips; the FP16 and E4M3 encoders agree with the
 * precision family's independent rounding (and with the compiler's _Float16) on a million
 * values; then each packer on hand-made rows (zero, max, ties, saturation, NaN/Inf input). */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "exp/precision/precision_math.h"
#include "exp/compress/quant.h"

#define EXPECT_BITS(got, want) \
    do { unsigned g_ = (unsigned)(got), w_ = (unsigned)(want); \
        if (g_ != w_) { check_failures++; \
            printf("%s:%d: %s = 0x%x, expected 0x%x\n", __FILE__, __LINE__, #got, g_, w_); } } while (0)

static uint32_t fbits(float f) { return quant_bits(f); }

static void test_fp16(void)
{
    EXPECT_BITS(quant_fp16_bits(0.0f), 0x0000);
    EXPECT_BITS(quant_fp16_bits(-0.0f), 0x8000);
    EXPECT_BITS(quant_fp16_bits(1.0f), 0x3c00);
    EXPECT_BITS(quant_fp16_bits(-2.0f), 0xc000);
    EXPECT_BITS(quant_fp16_bits(0.1f), 0x2e66);
    EXPECT_BITS(quant_fp16_bits(65504.0f), 0x7bff);             /* max */
    EXPECT_BITS(quant_fp16_bits(65519.996f), 0x7bff);           /* just below the halfway point */
    EXPECT_BITS(quant_fp16_bits(65520.0f), 0x7c00);             /* halfway: to even, which is infinity */
    EXPECT_BITS(quant_fp16_bits(1e6f), 0x7c00);
    EXPECT_BITS(quant_fp16_bits(INFINITY), 0x7c00);
    EXPECT_BITS(quant_fp16_bits(-INFINITY), 0xfc00);
    EXPECT_BITS(quant_fp16_bits(NAN), 0x7e00);
    EXPECT_BITS(quant_fp16_bits(-NAN) & 0xfe00, 0xfe00);        /* a quiet NaN, sign kept */
    EXPECT_BITS(quant_fp16_bits(0x1p-14f), 0x0400);             /* smallest normal */
    EXPECT_BITS(quant_fp16_bits(0x1p-24f), 0x0001);             /* smallest subnormal */
    EXPECT_BITS(quant_fp16_bits(0x1p-25f), 0x0000);             /* tie 0 / 2^-24: even */
    EXPECT_BITS(quant_fp16_bits(0x1.8p-25f), 0x0001);           /* above the tie */
    EXPECT_BITS(quant_fp16_bits(0x1.8p-24f), 0x0002);           /* tie 1 / 2: even */
    EXPECT_BITS(quant_fp16_bits(0x1.4p-23f), 0x0002);           /* 2.5 x 2^-24: tie 2 / 3: even */
    EXPECT_BITS(quant_fp16_bits(1023 * 0x1p-24f), 0x03ff);      /* largest subnormal */
    EXPECT_BITS(quant_fp16_bits(1023.5f * 0x1p-24f), 0x0400);   /* tie into the smallest normal */
    EXPECT_BITS(quant_fp16_bits(1.0f + 0x1p-11f), 0x3c00);      /* tie: even */
    EXPECT_BITS(quant_fp16_bits(1.0f + 3 * 0x1p-11f), 0x3c02);  /* tie: even */
    EXPECT_BITS(quant_fp16_bits(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    EXPECT_BITS(quant_fp16_bits(2049.0f), 0x6800);
    EXPECT_BITS(quant_fp16_bits(2051.0f), 0x6802);
    EXPECT_BITS(quant_fp16_bits(0x1p-30f), 0x0000);             /* underflow */
    EXPECT_BITS(fbits(quant_fp16_value(0x3555)), fbits(0.333251953125f));
    EXPECT_BITS(fbits(quant_fp16_value(0x0001)), fbits(0x1p-24f));
    EXPECT_BITS(fbits(quant_fp16_value(0x8400)), fbits(-0x1p-14f));
    EXPECT(isinf(quant_fp16_value(0xfc00)) && quant_fp16_value(0xfc00) < 0);
    EXPECT(isnan(quant_fp16_value(0x7e00)));
    int bad = 0;
    for (unsigned h = 0; h < 65536; h++) {              /* every code round-trips */
        float v = quant_fp16_value((uint16_t)h);
        if (isnan(v) ? !isnan(quant_fp16_value(quant_fp16_bits(v))) : quant_fp16_bits(v) != h)
            bad++;
    }
    EXPECT(bad == 0);
}

static void test_bf16(void)
{
    EXPECT_BITS(quant_bf16_bits(1.0f), 0x3f80);
    EXPECT_BITS(quant_bf16_bits(1.0f + 0x1p-8f), 0x3f80);      /* tie: even */
    EXPECT_BITS(quant_bf16_bits(1.0f + 3 * 0x1p-8f), 0x3f82);  /* tie: even */
    EXPECT_BITS(quant_bf16_bits(-0.0f), 0x8000);
    EXPECT_BITS(quant_bf16_bits(INFINITY), 0x7f80);
    EXPECT_BITS(quant_bf16_bits(FLT_MAX), 0x7f80);             /* rounds past the largest: IEEE */
    EXPECT_BITS(quant_bf16_bits(NAN), 0x7fc0);
    EXPECT_BITS(fbits(quant_bf16_value(0xc040)), fbits(-3.0f));
}

static void test_e4m3(void)
{
    EXPECT_BITS(quant_e4m3_bits(0.0f), 0x00);
    EXPECT_BITS(quant_e4m3_bits(-0.0f), 0x80);
    EXPECT_BITS(quant_e4m3_bits(1.0f), 0x38);
    EXPECT_BITS(quant_e4m3_bits(-1.0f), 0xb8);
    EXPECT_BITS(quant_e4m3_bits(2.0f), 0x40);
    EXPECT_BITS(quant_e4m3_bits(0.3f), 0x2a);                   /* 0.3125, the nearest */
    EXPECT_BITS(quant_e4m3_bits(240.0f), 0x77);
    EXPECT_BITS(quant_e4m3_bits(17.0f), 0x58);                  /* tie 16 / 18: even */
    EXPECT_BITS(quant_e4m3_bits(19.0f), 0x5a);                  /* tie 18 / 20: even */
    EXPECT_BITS(quant_e4m3_bits(448.0f), 0x7e);                 /* max */
    EXPECT_BITS(quant_e4m3_bits(-448.0f), 0xfe);
    EXPECT_BITS(quant_e4m3_bits(447.0f), 0x7e);
    EXPECT_BITS(quant_e4m3_bits(464.0f), 0x7e);                 /* saturates (480 would be NaN) */
    EXPECT_BITS(quant_e4m3_bits(1e9f), 0x7e);
    EXPECT_BITS(quant_e4m3_bits(INFINITY), 0x7e);
    EXPECT_BITS(quant_e4m3_bits(-INFINITY), 0xfe);
    EXPECT_BITS(quant_e4m3_bits(NAN), 0x7f);
    EXPECT_BITS(quant_e4m3_bits(-NAN), 0xff);
    EXPECT_BITS(quant_e4m3_bits(0x1p-6f), 0x08);                /* smallest normal */
    EXPECT_BITS(quant_e4m3_bits(0x1p-9f), 0x01);                /* smallest subnormal */
    EXPECT_BITS(quant_e4m3_bits(0x1p-10f), 0x00);               /* tie 0 / 2^-9: even */
    EXPECT_BITS(quant_e4m3_bits(0x1.8p-10f), 0x01);
    EXPECT_BITS(quant_e4m3_bits(0x1.8p-9f), 0x02);              /* tie 1 / 2: even */
    EXPECT_BITS(quant_e4m3_bits(7 * 0x1p-9f), 0x07);            /* largest subnormal */
    EXPECT_BITS(quant_e4m3_bits(7.5f * 0x1p-9f), 0x08);         /* tie into the smallest normal */
    EXPECT_BITS(quant_e4m3_bits(-0x1p-12f), 0x80);              /* underflow keeps the sign */
    EXPECT_BITS(fbits(quant_e4m3_value(0x7e)), fbits(448.0f));
    EXPECT_BITS(fbits(quant_e4m3_value(0x01)), fbits(0x1p-9f));
    EXPECT_BITS(fbits(quant_e4m3_value(0x80)), fbits(-0.0f));
    EXPECT_BITS(fbits(quant_e4m3_value(0xd3)), fbits(-11.0f));  /* 1.375 x 2^3 */
    EXPECT(isnan(quant_e4m3_value(0x7f)) && isnan(quant_e4m3_value(0xff)));
    int bad = 0;
    for (unsigned c = 0; c < 256; c++) {                /* every code: round trip, and the value */
        float v = quant_e4m3_value((uint8_t)c);
        if (quant_e4m3_bits(v) != c)
            bad++;
        if ((c & 0x7f) != 0x7f && v != (float)prec_decode(c, 4, 3, 7))
            bad++;
    }
    EXPECT(bad == 0);
}

static void test_e2m1_e8m0_int4(void)
{
    static const float in[] = { 0, 0.25f, 0.26f, 0.5f, 0.75f, 1.25f, 1.3f, 1.75f, 2.5f, 2.6f, 3.5f, 5, 5.01f, 6,
                                100, INFINITY, -0.5f, -3, -INFINITY, -0.1f };
    static const unsigned want[] = { 0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 7, 7, 7, 0x9, 0xd, 0xf, 0x8 };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        EXPECT_BITS(quant_e2m1_bits(in[i]), want[i]);
    static const float val[16] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6 };
    for (unsigned c = 0; c < 16; c++) {
        EXPECT_BITS(fbits(quant_e2m1_value((uint8_t)c)), fbits(val[c]));
        EXPECT_BITS(quant_e2m1_bits(val[c]), c);
        EXPECT(quant_e2m1_twice(c) == (int)(2 * val[c]));
    }
    EXPECT_BITS(fbits(quant_e8m0_value(127)), fbits(1.0f));
    EXPECT_BITS(fbits(quant_e8m0_value(0)), fbits(0x1p-127f));
    EXPECT_BITS(fbits(quant_e8m0_value(254)), fbits(0x1p127f));
    EXPECT(isnan(quant_e8m0_value(255)));
    EXPECT_BITS(quant_e8m0_for(1.0f, 2), 125);                  /* 2^(0 - 2) */
    EXPECT_BITS(quant_e8m0_for(6.0f, 2), 127);                  /* floor(log2 6) = 2 */
    EXPECT_BITS(quant_e8m0_for(7.99f, 2), 127);
    EXPECT_BITS(quant_e8m0_for(0.75f, 2), 124);
    EXPECT_BITS(quant_e8m0_for(0.0f, 2), 0);
    EXPECT_BITS(quant_e8m0_for(FLT_MAX, 2), 252);
    EXPECT_BITS(quant_e8m0_for(1e-40f, 2), 0);                  /* subnormal: clamped to 2^-127 */
    EXPECT(quant_nibble_s4(0x8f, 0) == -1 && quant_nibble_s4(0x8f, 1) == -8);
    EXPECT(quant_nibble_s4(0x71, 0) == 1 && quant_nibble_s4(0x71, 1) == 7);
    EXPECT(quant_round_clamp(2.5f, 7) == 2 && quant_round_clamp(3.5f, 7) == 4 && quant_round_clamp(-7.6f, 7) == -7);
    EXPECT(quant_round_clamp(NAN, 7) == 0 && quant_round_clamp(INFINITY, 127) == 127);
}

/* The encoders against the precision family's frexp/ldexp rounding and the compiler's FP16. */
static void test_agreement(void)
{
    int bad16 = 0, bad8 = 0, badhw = 0;
    for (uint64_t i = 0; i < 1000000; i++) {
        uint32_t u = (uint32_t)quant_mix(i);
        float f = quant_float((u & 0x807fffffu) | ((uint32_t)(100 + (u >> 23) % 56) << 23));   /* 2^-27 .. 2^28 */
        if (quant_fp16_bits(f) != prec_fp16_bits(f))
            bad16++;
        if (quant_e4m3_bits(f) != prec_e4m3_bits(f))
            bad8++;
#ifdef __FLT16_MAX__
        _Float16 h = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &h, sizeof hb);
        badhw += hb != quant_fp16_bits(f);
#endif
    }
    EXPECT(bad16 == 0);
    EXPECT(bad8 == 0);
    EXPECT(badhw == 0);
}

static struct quant_matrix *packed(enum quant_id id, size_t rows, size_t cols, double sparsity, const float *w)
{
    char err[256];
    struct quant_matrix *m = quant_new(id, rows, cols, sparsity, err, sizeof err);
    if (!m)
        printf("  %s\n", err);
    EXPECT(m != NULL);
    if (m)
        quant_pack(m, w, 2);
    return m;
}

static void test_pack_int8_fp8(void)
{
    float row[16] = { 127, -254, 1, 0.5f, 1.5f, 2.5f, INFINITY, -INFINITY, 0, 0, 0, 0, 0, 0, 0, 0 };
    static const int8_t want8[8] = { 64, -127, 0, 0, 1, 1, 127, -127 };   /* scale 2: 63.5 -> 64 (even) */
    struct quant_matrix *m = packed(QUANT_INT8, 1, 16, 0, row);
    EXPECT_BITS(fbits(((float *)m->scales)[0]), fbits(2.0f));
    for (int i = 0; i < 8; i++)
        EXPECT(((int8_t *)m->vals)[i] == want8[i]);
    quant_free(m);
    row[3] = NAN;                                       /* a NaN: the row's scale, every value NaN */
    m = packed(QUANT_INT8, 1, 16, 0, row);
    float out[16];
    quant_unpack_row(m, 0, out);
    EXPECT(isnan(out[0]) && isnan(out[15]));
    quant_free(m);
    float t[8] = { 448, 896, -1, NAN, INFINITY, 0, 0x1p-12f, 224 };          /* amax 896: scale 2 */
    static const uint8_t want[8] = { 0x76, 0x7e, 0xb0, 0x7f, 0x7e, 0x00, 0x00, 0x6e };
    m = packed(QUANT_FP8, 1, 8, 0, t);
    EXPECT_BITS(fbits(m->tensor_scale), fbits(2.0f));
    for (int i = 0; i < 8; i++)
        EXPECT_BITS(((uint8_t *)m->vals)[i], want[i]);
    quant_unpack_row(m, 0, out);
    EXPECT_BITS(fbits(out[1]), fbits(896.0f));
    EXPECT(isnan(out[3]));
    quant_free(m);
}

/* int4, one group of 32: amax 4 -> scale FP16(4/7) = 0x3892 (0.5712890625). */
static void test_pack_int4(void)
{
    float w[32] = { 4, -4, 1, 0.25f, 0.5f, -0.8568f, 2, 3 }, out[32];
    static const int want[8] = { 7, -7, 2, 0, 1, -1, 4, 5 };    /* 1.75 -> 2; 0.4376 -> 0; -1.4998 -> -1 */
    struct quant_matrix *m = packed(QUANT_INT4_G32, 1, 32, 0, w);
    EXPECT_BITS(((uint16_t *)m->scales)[0], 0x3892);
    for (int i = 0; i < 8; i++)
        EXPECT(quant_nibble_s4(((uint8_t *)m->vals)[i / 2], i & 1) == want[i]);
    quant_unpack_row(m, 0, out);
    EXPECT_BITS(fbits(out[0]), fbits(7 * 0.5712890625f));
    EXPECT_BITS(fbits(out[31]), fbits(0.0f));
    quant_free(m);
    w[0] = 1e6f;                                        /* the scale saturates at 65504, values clamp */
    w[1] = -INFINITY;
    m = packed(QUANT_INT4_G32, 1, 32, 0, w);
    EXPECT_BITS(((uint16_t *)m->scales)[0], 0x7bff);
    EXPECT(quant_nibble_s4(((uint8_t *)m->vals)[0], 0) == 7 && quant_nibble_s4(((uint8_t *)m->vals)[0], 1) == -7);
    quant_free(m);
    float two[64] = { 1, NAN };                         /* a NaN spoils its group only */
    two[40] = 3.5f;
    m = packed(QUANT_INT4_G32, 1, 64, 0, two);
    EXPECT_BITS(((uint16_t *)m->scales)[0], 0x7e00);
    quant_unpack_row(m, 0, two);
    EXPECT(isnan(two[0]) && isnan(two[31]) && two[40] == 3.5f && two[41] == 0);
    quant_free(m);
}

static void test_pack_fp4(void)
{
    float w[32] = { 6, 3, 1.5f, 0.25f, 0.75f, -2.5f, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    0.6f, 0.3f, -0.02f, 0 }, out[32];
    float t[32 * 84];                                   /* amax 2688 somewhere: tensor scale 1 */
    memset(t, 0, sizeof t);
    memcpy(t, w, sizeof w);
    t[32 * 84 - 1] = 2688;
    struct quant_matrix *m = packed(QUANT_NVFP4, 84, 32, 0, t);
    static const uint8_t codes[8] = { 7, 5, 3, 0, 2, 0xc, 6, 0 };   /* E2M1 of w[0..7] with scale 1 */
    EXPECT_BITS(fbits(m->tensor_scale), fbits(1.0f));
    EXPECT_BITS(((uint8_t *)m->scales)[0], 0x38);                  /* E4M3(6 / 6) */
    EXPECT_BITS(((uint8_t *)m->scales)[1], 0x1d);                  /* E4M3(0.6 / 6): 0.1015625 */
    for (int i = 0; i < 8; i++)
        EXPECT_BITS((((uint8_t *)m->vals)[i / 2] >> (4 * (i & 1))) & 0xf, codes[i]);
    quant_unpack_row(m, 0, out);
    EXPECT_BITS(fbits(out[16]), fbits(6 * 0.1015625f));           /* 0.6 / 0.1015625 = 5.9 -> 6 */
    EXPECT_BITS(fbits(out[17]), fbits(3 * 0.1015625f));           /* 2.95 -> 3 */
    EXPECT_BITS(fbits(out[18]), fbits(-0.0f));                     /* -0.197 -> -0 */
    quant_free(m);
    float x[64] = { 7.9f, 1, -3.96f, 0.1f };            /* MX: amax 7.9 -> X = 1, 7.9 saturates to 6 */
    x[32] = 0.7f;                                       /* amax 0.7 -> X = 2^-3: 5.6 -> 6 */
    x[33] = NAN;
    x[34] = 0.7f;
    m = packed(QUANT_MXFP4, 1, 64, 0, x);
    EXPECT_BITS(((uint8_t *)m->scales)[0], 127);
    EXPECT_BITS(((uint8_t *)m->scales)[1], 0xff);       /* the NaN block */
    EXPECT_BITS(((uint8_t *)m->vals)[0], 0x27);         /* 6 (7), then 1 (2) */
    EXPECT_BITS(((uint8_t *)m->vals)[1], 0x0e);         /* -4 (0xe: -3.96 rounds to -4), then 0.1 -> 0 */
    quant_unpack_row(m, 0, x);
    EXPECT(x[0] == 6 && x[2] == -4 && isnan(x[32]) && isnan(x[63]));
    quant_free(m);
}

static void test_prune(void)
{
    float w[8] = { 0.1f, -0.5f, 0.3f, 0.5f, 0, -0.2f, 0.3f, 0.05f }, out[8];
    struct quant_matrix *m = packed(QUANT_CSR, 1, 8, 0.5, w);   /* keeps 4: both 0.5s and both 0.3s */
    static const uint16_t cols4[4] = { 1, 2, 3, 6 };
    EXPECT(m->kept == 4 && m->rowptr[0] == 0 && m->rowptr[1] == 4);
    for (int i = 0; i < 4; i++)
        EXPECT(((uint16_t *)m->idx)[i] == cols4[i]);
    EXPECT_BITS(((uint16_t *)m->vals)[0], quant_bf16_bits(-0.5f));
    quant_free(m);
    m = packed(QUANT_CSR, 1, 8, 0.625, w);              /* keeps 3: the tie at 0.3 goes to column 2 */
    static const uint16_t cols3[3] = { 1, 2, 3 };
    for (int i = 0; i < 3; i++)
        EXPECT(((uint16_t *)m->idx)[i] == cols3[i]);
    quant_unpack_row(m, 0, out);
    EXPECT(out[0] == 0 && out[6] == 0 && out[3] == 0.5f);
    quant_free(m);
    float g[8] = { 0.1f, -0.5f, 0.3f, 0.2f, 1, 1, 1, 1 };
    m = packed(QUANT_24, 1, 8, 0, g);                   /* group 0: columns 1, 2; group 1: 0, 1 (ties) */
    EXPECT_BITS(((uint8_t *)m->idx)[0], 0x49);
    EXPECT_BITS(((uint16_t *)m->vals)[1], quant_bf16_bits(0.3f));
    quant_unpack_row(m, 0, out);
    EXPECT(out[0] == 0 && out[1] == -0.5f && out[3] == 0 && out[4] == 1 && out[5] == 1 && out[6] == 0);
    quant_free(m);
    float n[8] = { 0.1f, NAN, 0.3f, 0.2f, 9, 0, 0, 0 };    /* NaN ranks first */
    m = packed(QUANT_24, 1, 8, 0, n);
    EXPECT_BITS(((uint8_t *)m->idx)[0] & 0xf, 0x9);
    quant_free(m);
}

/* Random rows full of ties: CSR keeps exactly the largest magnitudes, and of those equal to the
 * smallest kept, the leftmost; 2:4 keeps the two largest of each four, in column order. */
static int csr_row_wrong(const float *w, int cols, const struct quant_matrix *m)
{
    int in[256] = { 0 }, kept = 0, last_kept_tie = -1, first_dropped_tie = cols;
    float lo_kept = INFINITY, hi_dropped = 0;
    for (size_t j = 0; j < m->kept; j++)
        in[((uint16_t *)m->idx)[j]] = 1;
    for (int c = 0; c < cols; c++) {
        kept += in[c];
        if (in[c])
            lo_kept = fminf(lo_kept, fabsf(w[c]));
        else
            hi_dropped = fmaxf(hi_dropped, fabsf(w[c]));
    }
    for (int c = 0; c < cols; c++) {
        if (fabsf(w[c]) == lo_kept && in[c])
            last_kept_tie = c;
        if (fabsf(w[c]) == lo_kept && !in[c] && c < first_dropped_tie)
            first_dropped_tie = c;
    }
    return kept != (int)m->kept || lo_kept < hi_dropped || last_kept_tie > first_dropped_tie;
}

static int groups_wrong(const float *w, int cols, const struct quant_matrix *m)
{
    int bad = 0;
    for (int g = 0; g < cols / 4; g++) {
        uint8_t p = (uint8_t)(((uint8_t *)m->idx)[g / 2] >> (4 * (g & 1)));
        float lo = INFINITY, hi = 0;
        for (int i = 0; i < 4; i++) {
            if ((p & 3) == i || ((p >> 2) & 3) == i)
                lo = fminf(lo, fabsf(w[4 * g + i]));
            else
                hi = fmaxf(hi, fabsf(w[4 * g + i]));
        }
        bad += lo < hi || (p & 3) >= ((p >> 2) & 3);
    }
    return bad;
}

static void test_prune_random(void)
{
    enum { COLS = 64 };
    float w[COLS];
    int bad = 0;
    for (int row = 0; row < 300; row++) {
        for (int c = 0; c < COLS; c++)
            w[c] = (float)((int)(quant_mix((uint64_t)(row * COLS + c)) % 7) - 3) * 0.1f;
        struct quant_matrix *m = packed(QUANT_CSR, 1, COLS, row % 2 ? 0.5 : 0.75, w);
        bad += csr_row_wrong(w, COLS, m);
        quant_free(m);
        m = packed(QUANT_24, 1, COLS, 0, w);
        bad += groups_wrong(w, COLS, m);
        quant_free(m);
    }
    EXPECT(bad == 0);
}

static void test_table(void)
{
    EXPECT(quant_find("int4-g128") == QUANT_INT4_G128 && quant_find("prune") == QUANT_CSR && quant_find("x") < 0);
    EXPECT_NEAR(quant_schemes[QUANT_NVFP4].bits_per_weight, 4.5, 0);
    EXPECT_NEAR(quant_schemes[QUANT_MXFP4].bits_per_weight, 4.25, 0);
    EXPECT_NEAR(quant_schemes[QUANT_INT4_G128].bits_per_weight, 4.125, 0);
    EXPECT_NEAR(quant_schemes[QUANT_24].bits_per_weight, 9, 0);
    for (int i = 0; i < QUANT_N; i++) {                 /* nominal = density x (value + index) + scale / block */
        const struct quant_scheme *s = &quant_schemes[i];
        double d = s->density > 0 ? s->density : 1;
        EXPECT_NEAR(s->bits_per_weight, d * (s->value_bits + s->index_bits) + (s->block > 0 ? s->scale_bits / s->block : 0), 1e-12);
    }
    char err[256];
    struct quant_matrix *m = quant_new(QUANT_INT4_G32, 10, 128, 0, err, sizeof err);
    EXPECT_NEAR(quant_bits_per_weight(m), 4.5, 1e-12);
    quant_free(m);
    m = quant_new(QUANT_CSR, 10, 128, 0.75, err, sizeof err);  /* 32 kept x 32 bits + a row pointer */
    EXPECT_NEAR(quant_bits_per_weight(m), (10 * 32 * 32 + 11 * 32) / 1280.0, 1e-12);
    quant_free(m);
    EXPECT(quant_new(QUANT_INT4_G128, 4, 96, 0, err, sizeof err) == NULL && strstr(err, "block"));
    EXPECT(quant_new(QUANT_CSR, 4, 131072, 0.5, err, sizeof err) == NULL && strstr(err, "65536"));
}

int main(void)
{
    test_fp16();
    test_bf16();
    test_e4m3();
    test_e2m1_e8m0_int4();
    test_agreement();
    test_pack_int8_fp8();
    test_pack_int4();
    test_pack_fp4();
    test_prune();
    test_prune_random();
    test_table();
    return CHECK_DONE();
}
