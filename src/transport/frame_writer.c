/*
 * frame_writer.c - the device side of the transport: files cut into
 * checked frames that a host finds in any byte stream (etkit/transport.h,
 * docs/transport.md).
 *
 * PURPOSE
 *   A board has a UART and a few hundred bytes to spare.  Upstream's Arm
 *   runner base64-encodes the whole ETDump into a second buffer (1.33x the
 *   dump) and prints it with no check at all.  This writer needs no copy of
 *   the file: data bytes go from the caller's memory straight to `write`,
 *   framed so that a host detects every lost, doubled, reordered or damaged
 *   chunk and every truncated file.
 *
 * THE ENCODING
 *   A frame is 0x00, the marker 0xFF 'E' 'T', the payload in rCOBS, 0x00.
 *   rCOBS ("reverse COBS") removes every 0x00 from the payload as COBS
 *   does, one code byte per zero or per 254 non-zero bytes, but writes each
 *   code byte AFTER its group: code = number of data bytes since the last
 *   code + 1; 0xFF means 254 bytes and no zero.  The writer therefore only
 *   counts (enc_t.run) and never buffers; the host, which holds the whole
 *   frame anyway, decodes from the end.  The CRC-32 at the end of the
 *   payload is computed on the fly.
 *
 * INVARIANTS
 *   - Every public call writes whole frames: between two calls the line is
 *     between frames, so firmware log text never lands inside one.
 *   - tx->staged <= ETK_TX_STAGE and <= chunk_bytes; tx->sent counts the
 *     data bytes of the open file already framed, staged bytes excluded.
 *   - After a failed write, every call fails with ETK_E_IO until
 *     etk_tx_init: the host has a hole and must see the file incomplete.
 *   - Exclusive mode (etk_tx_set_exclusive) is the one exception to whole
 *     frames per call: a streamed chunk's frame stays open (tx->in_frame,
 *     its CRC and rCOBS run in tx) until it is full or the file closes.
 */
#include <string.h>

#include "etkit/transport.h"

/* The writer's state is the device's staging RAM: keep it within 256
 * bytes on 32-bit and 64-bit targets alike. */
typedef char etk_tx_size_check[sizeof(etk_tx_t) <= 256 ? 1 : -1];

static const uint32_t crc_table[256] = {
    0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u,
    0x706af48fu, 0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u,
    0xe0d5e91eu, 0x97d2d988u, 0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u,
    0x90bf1d91u, 0x1db71064u, 0x6ab020f2u, 0xf3b97148u, 0x84be41deu,
    0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u, 0x136c9856u,
    0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
    0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u,
    0xa2677172u, 0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu,
    0x35b5a8fau, 0x42b2986cu, 0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u,
    0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u, 0x26d930acu, 0x51de003au,
    0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u, 0xcfba9599u,
    0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
    0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u,
    0x01db7106u, 0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu,
    0x9fbfe4a5u, 0xe8b8d433u, 0x7807c9a2u, 0x0f00f934u, 0x9609a88eu,
    0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du, 0x91646c97u, 0xe6635c01u,
    0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu, 0x6c0695edu,
    0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
    0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u,
    0xfbd44c65u, 0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u,
    0x4adfa541u, 0x3dd895d7u, 0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au,
    0x346ed9fcu, 0xad678846u, 0xda60b8d0u, 0x44042d73u, 0x33031de5u,
    0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau, 0xbe0b1010u,
    0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
    0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u,
    0x2eb40d81u, 0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u,
    0x03b6e20cu, 0x74b1d29au, 0xead54739u, 0x9dd277afu, 0x04db2615u,
    0x73dc1683u, 0xe3630b12u, 0x94643b84u, 0x0d6d6a3eu, 0x7a6a5aa8u,
    0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u, 0xf00f9344u,
    0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
    0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au,
    0x67dd4accu, 0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u,
    0xd6d6a3e8u, 0xa1d1937eu, 0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u,
    0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu, 0xd80d2bdau, 0xaf0a1b4cu,
    0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u, 0x316e8eefu,
    0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
    0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu,
    0xb2bd0b28u, 0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u,
    0x2cd99e8bu, 0x5bdeae1du, 0x9b64c2b0u, 0xec63f226u, 0x756aa39cu,
    0x026d930au, 0x9c0906a9u, 0xeb0e363fu, 0x72076785u, 0x05005713u,
    0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u, 0x92d28e9bu,
    0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
    0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u,
    0x18b74777u, 0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu,
    0x8f659effu, 0xf862ae69u, 0x616bffd3u, 0x166ccf45u, 0xa00ae278u,
    0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u, 0xa7672661u, 0xd06016f7u,
    0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu, 0x40df0b66u,
    0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
    0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u,
    0xcdd70693u, 0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u,
    0x5d681b02u, 0x2a6f2b94u, 0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu,
    0x2d02ef8du,
};

uint32_t etk_crc32(uint32_t crc, const void *data, size_t n) {
  const uint8_t *p = (const uint8_t *)data;
  crc = ~crc;
  while (n--) crc = crc_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

/* ------------------------------------------------------ the frame encoder */

typedef struct enc {
  etk_tx_t *tx;
  uint32_t crc; /* of the payload so far (pre-inversion form of etk_crc32) */
  unsigned run; /* non-zero bytes since the last code byte */
  int rc;
} enc_t;

static void raw(enc_t *e, const void *bytes, size_t n) {
  if (e->rc == ETK_OK && n > 0 && e->tx->write(e->tx->ctx, bytes, n) != 0)
    e->rc = ETK_E_IO;
}

static void code(enc_t *e) {
  uint8_t c = (uint8_t)(e->run + 1u);
  raw(e, &c, 1);
  e->run = 0;
}

/* Payload bytes: CRC, then runs of non-zero bytes passed through as they
 * are, a code byte for each zero and after each 254 non-zero bytes. */
static void put(enc_t *e, const void *bytes, size_t n) {
  const uint8_t *p = (const uint8_t *)bytes;
  e->crc = etk_crc32(e->crc, p, n);
  while (n > 0 && e->rc == ETK_OK) {
    size_t room = 254u - e->run, k = 0;
    while (k < n && k < room && p[k] != 0) k++;
    raw(e, p, k);
    e->run += (unsigned)k;
    p += k;
    n -= k;
    if (e->run == 254u) {
      code(e); /* 0xFF: a full group, no zero */
    } else if (n > 0) {
      code(e); /* p[0] is a zero: the code stands for it */
      p++;
      n--;
    }
  }
}

static void put_u32(enc_t *e, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                  (uint8_t)(v >> 24)};
  put(e, b, 4);
}

/* An unsigned LEB128 number: 7 bits a byte, low first, high bit = more. */
static void put_var(enc_t *e, uint32_t v) {
  uint8_t b[5];
  size_t n = 0;
  do {
    b[n] = (uint8_t)(v & 0x7fu);
    v >>= 7;
    if (v) b[n] |= 0x80u;
    n++;
  } while (v);
  put(e, b, n);
}

/* One chunk of the open file: the parts' bytes [from, from + len). */
typedef struct chunk {
  const etk_tx_part_t *parts;
  size_t nparts;
  size_t from, len;
  int last;
  uint32_t total, file_crc; /* with last */
} chunk_t;

/* The opening bytes and the header of the open file's next chunk: the
 * first chunk names the file, the others give its id, sequence number
 * and offset. */
static void frame_begin(enc_t *e, int last) {
  etk_tx_t *tx = e->tx;
  static const uint8_t open[1 + ETK_TX_MARKER_LEN] = {0x00, 0xff, 'E', 'T'};
  uint8_t flags = (uint8_t)((tx->seq == 0 ? ETK_TX_FLAG_FIRST : 0) |
                            (last ? ETK_TX_FLAG_LAST : 0));
  uint8_t head[3] = {ETK_TX_VERSION, flags, tx->id};
  raw(e, open, sizeof open);
  put(e, head, sizeof head);
  if (tx->seq == 0) {
    uint8_t kn[2] = {tx->kind, tx->name_len};
    put(e, kn, sizeof kn);
    put(e, tx->name, tx->name_len);
  } else {
    put_var(e, tx->seq);
    put_var(e, tx->sent);
  }
}

/* The trailer after `len` data bytes, the CRC, the last code, 0x00; then
 * the chunk counts as sent (or the writer as failed).  A file's only
 * chunk needs no trailer: its length is the frame's, its CRC the frame's. */
static int frame_end(enc_t *e, size_t len, const chunk_t *last) {
  static const uint8_t close = 0x00;
  etk_tx_t *tx = e->tx;
  if (last && tx->seq > 0) put_u32(e, last->file_crc);
  put_u32(e, e->crc);
  code(e);
  raw(e, &close, 1);
  e->crc = 0;
  if (e->rc != ETK_OK) {
    tx->failed = 1;
    return e->rc;
  }
  tx->seq++;
  tx->sent += (uint32_t)len;
  return ETK_OK;
}

/* The parts' bytes [from, from + len) through the encoder. */
static void put_parts(enc_t *e, const etk_tx_part_t *parts, size_t nparts,
                      size_t from, size_t len) {
  for (size_t i = 0; i < nparts && len > 0; i++) {
    if (from >= parts[i].len) {
      from -= parts[i].len;
      continue;
    }
    size_t take = parts[i].len - from;
    if (take > len) take = len;
    put(e, (const uint8_t *)parts[i].data + from, take);
    from = 0;
    len -= take;
  }
}

static int send_frame(etk_tx_t *tx, const chunk_t *c) {
  enc_t e = {tx, 0, 0, ETK_OK};
  if (tx->failed) return ETK_E_IO;
  frame_begin(&e, c->last);
  put_parts(&e, c->parts, c->nparts, c->from, c->len);
  return frame_end(&e, c->len, c->last ? c : NULL);
}

/* Exclusive mode: the chunk's frame stays open across calls, its encoder
 * state (CRC, run) kept in tx, and closes when the chunk is full. */
static int write_held(etk_tx_t *tx, const uint8_t *p, size_t n) {
  enc_t e = {tx, tx->frame_crc, tx->run, ETK_OK};
  int rc = ETK_OK;
  while (n > 0 && rc == ETK_OK && e.rc == ETK_OK) {
    if (!tx->in_frame) {
      frame_begin(&e, 0);
      tx->in_frame = 1;
      tx->fill = 0;
    }
    size_t take = (size_t)(tx->chunk_bytes - tx->fill);
    if (take > n) take = n;
    put(&e, p, take);
    tx->file_crc = etk_crc32(tx->file_crc, p, take);
    tx->fill = (uint16_t)(tx->fill + take);
    p += take;
    n -= take;
    if (tx->fill == tx->chunk_bytes) {
      tx->in_frame = 0;
      rc = frame_end(&e, tx->fill, NULL);
    }
  }
  tx->frame_crc = e.crc;
  tx->run = (uint8_t)e.run;
  if (e.rc != ETK_OK) tx->failed = 1;
  return rc != ETK_OK ? rc : e.rc;
}

/* ------------------------------------------------------ the public calls */

int etk_tx_init(etk_tx_t *tx, etk_tx_write_fn write, void *ctx) {
  if (tx == NULL || write == NULL) return ETK_E_INVALID_ARGUMENT;
  memset(tx, 0, sizeof *tx);
  tx->write = write;
  tx->ctx = ctx;
  tx->chunk_bytes = ETK_TX_CHUNK_DEFAULT;
  return ETK_OK;
}

int etk_tx_set_chunk_bytes(etk_tx_t *tx, size_t bytes) {
  if (tx == NULL || bytes == 0 || bytes > ETK_TX_CHUNK_MAX)
    return ETK_E_INVALID_ARGUMENT;
  if (tx->open) return ETK_E_INVALID_STATE;
  tx->chunk_bytes = (uint16_t)bytes;
  return ETK_OK;
}

int etk_tx_set_exclusive(etk_tx_t *tx, int on) {
  if (tx == NULL) return ETK_E_INVALID_ARGUMENT;
  if (tx->open) return ETK_E_INVALID_STATE;
  tx->exclusive = on != 0;
  return ETK_OK;
}

int etk_tx_name_ok(const char *name, size_t len) {
  if (name == NULL || len == 0 || len > ETK_TX_NAME_MAX || name[0] == '.')
    return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)name[i];
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
             (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-' ||
             ch == '+';
    if (!ok) return 0;
  }
  return 1;
}

int etk_tx_open(etk_tx_t *tx, etk_tx_kind_t kind, const char *name) {
  if (tx == NULL || name == NULL) return ETK_E_INVALID_ARGUMENT;
  size_t len = strlen(name);
  if (kind < ETK_TX_KIND_ETDUMP || kind > ETK_TX_KIND_OTHER ||
      !etk_tx_name_ok(name, len))
    return ETK_E_INVALID_ARGUMENT;
  if (tx->open) return ETK_E_INVALID_STATE;
  if (tx->failed) return ETK_E_IO;
  tx->name = name;
  tx->name_len = (uint8_t)len;
  tx->kind = (uint8_t)kind;
  tx->id = (uint8_t)(tx->id % 255u + 1u); /* 1..255: 0 is the stream's end */
  tx->seq = 0;
  tx->sent = 0;
  tx->staged = 0;
  tx->file_crc = 0;
  tx->in_frame = 0;
  tx->fill = 0;
  tx->frame_crc = 0;
  tx->run = 0;
  tx->open = 1;
  return ETK_OK;
}

int etk_tx_write(void *ctx, const void *bytes, size_t n) {
  etk_tx_t *tx = (etk_tx_t *)ctx;
  const uint8_t *p = (const uint8_t *)bytes;
  if (tx == NULL || (p == NULL && n > 0)) return ETK_E_INVALID_ARGUMENT;
  if (!tx->open) return ETK_E_INVALID_STATE;
  if (tx->failed) return ETK_E_IO;
  if (n > UINT32_MAX - tx->sent - tx->staged - tx->fill) return ETK_E_LIMIT;
  if (tx->exclusive) return write_held(tx, p, n);
  size_t cap = tx->chunk_bytes < ETK_TX_STAGE ? tx->chunk_bytes : ETK_TX_STAGE;
  while (n > 0) {
    if (tx->staged + n <= cap) {
      memcpy(tx->stage + tx->staged, p, n);
      tx->staged = (uint16_t)(tx->staged + n);
      return ETK_OK;
    }
    size_t take = tx->chunk_bytes - tx->staged;
    if (take > n) take = n;
    etk_tx_part_t parts[2] = {{tx->stage, tx->staged}, {p, take}};
    chunk_t c = {parts, 2, 0, tx->staged + take, 0, 0, 0};
    tx->file_crc = etk_crc32(tx->file_crc, tx->stage, tx->staged);
    tx->file_crc = etk_crc32(tx->file_crc, p, take);
    int rc = send_frame(tx, &c);
    if (rc != ETK_OK) return rc;
    tx->staged = 0;
    p += take;
    n -= take;
  }
  return ETK_OK;
}

int etk_tx_close(etk_tx_t *tx) {
  if (tx == NULL) return ETK_E_INVALID_ARGUMENT;
  if (!tx->open) return ETK_E_INVALID_STATE;
  tx->open = 0;
  if (tx->failed) return ETK_E_IO;
  if (tx->in_frame) { /* its header said "not last": end it, then a last */
    enc_t e = {tx, tx->frame_crc, tx->run, ETK_OK};
    tx->in_frame = 0;
    int rc = frame_end(&e, tx->fill, NULL);
    if (rc != ETK_OK) return rc;
  }
  tx->file_crc = etk_crc32(tx->file_crc, tx->stage, tx->staged);
  etk_tx_part_t part = {tx->stage, tx->staged};
  chunk_t c = {&part, 1, 0, tx->staged, 1, tx->sent + tx->staged, tx->file_crc};
  int rc = send_frame(tx, &c);
  tx->staged = 0;
  return rc;
}

int etk_tx_send_parts(etk_tx_t *tx, etk_tx_kind_t kind, const char *name,
                      const etk_tx_part_t *parts, size_t nparts) {
  if (tx == NULL || (parts == NULL && nparts > 0))
    return ETK_E_INVALID_ARGUMENT;
  size_t len = 0;
  uint32_t crc = 0;
  for (size_t i = 0; i < nparts; i++) {
    if (parts[i].data == NULL && parts[i].len > 0)
      return ETK_E_INVALID_ARGUMENT;
    if (parts[i].len > UINT32_MAX - len) return ETK_E_LIMIT;
    len += parts[i].len;
  }
  int rc = etk_tx_open(tx, kind, name);
  if (rc != ETK_OK) return rc;
  for (size_t i = 0; i < nparts; i++)
    crc = etk_crc32(crc, parts[i].data, parts[i].len);
  size_t done = 0;
  do {
    size_t take = len - done;
    int last = take <= tx->chunk_bytes;
    if (!last) take = tx->chunk_bytes;
    chunk_t c = {parts, nparts, done, take, last, (uint32_t)len, crc};
    rc = send_frame(tx, &c);
    done += take;
  } while (rc == ETK_OK && done < len);
  tx->open = 0;
  return rc;
}

int etk_tx_send_file(etk_tx_t *tx, etk_tx_kind_t kind, const char *name,
                     const void *data, size_t len) {
  etk_tx_part_t part = {data, len};
  if (data == NULL && len > 0) return ETK_E_INVALID_ARGUMENT;
  if (len > UINT32_MAX) return ETK_E_LIMIT;
  return etk_tx_send_parts(tx, kind, name, &part, 1);
}

int etk_tx_end_stream(etk_tx_t *tx) {
  if (tx == NULL) return ETK_E_INVALID_ARGUMENT;
  if (tx->open) return ETK_E_INVALID_STATE;
  uint8_t id = tx->id;
  tx->kind = ETK_TX_KIND_END_STREAM;
  tx->name = "";
  tx->name_len = 0;
  tx->id = 0;
  tx->seq = 0;
  tx->sent = 0;
  chunk_t c = {NULL, 0, 0, 0, 1, 0, 0};
  int rc = send_frame(tx, &c);
  tx->id = id;
  return rc;
}

uint64_t etk_tx_wire_bound(size_t len, size_t name_len, size_t chunk_bytes) {
  if (chunk_bytes == 0) chunk_bytes = ETK_TX_CHUNK_DEFAULT;
  uint64_t chunks =
      len == 0 ? 1u : ((uint64_t)len + chunk_bytes - 1u) / chunk_bytes;
  /* the first chunk names the file; the others carry a sequence number and
   * an offset (5 bytes each at most); the last of several the file's CRC */
  uint64_t payload = chunks * ETK_TX_PAYLOAD_FIXED + 2u + name_len + len;
  if (chunks > 1) payload += (chunks - 1u) * 10u + 4u;
  /* per frame: 0x00, marker, final code, 0x00; one code per 254 bytes */
  return payload + payload / 254u + chunks * (3u + ETK_TX_MARKER_LEN);
}
