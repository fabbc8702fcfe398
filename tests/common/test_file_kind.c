/*
 * test_file_kind.c - etk_file_kind_* (src/common/file_kind.c): every etkit
 * file kind is told apart, and the wrong kind gets one line saying what
 * the file is and which option takes it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etk_test.h"
#include "etkit/common.h"

ETK_TEST(kinds_from_first_bytes) {
  static const uint8_t pte[] = "\x10\0\0\0ET12eh00";
  static const uint8_t bpte[] = "\x10\0\0\0BP08xxxx";
  static const uint8_t etdump[] = "\x40\0\0\0\x10\0\0\0ED00";
  static const uint8_t bare[] = "\x10\0\0\0ED00xxxx";
  static const uint8_t zip[] = "PK\x03\x04xxxxxxxx";
  static const uint8_t npy[] = "\x93NUMPY\x01\x00";
  static const uint8_t raw[] = "\x00\x00\x80\x3f\x00\x00\x80\x3f";
  CHECK_EQ_INT(etk_file_kind_detect(pte, 12), ETK_FILE_PTE);
  CHECK_EQ_INT(etk_file_kind_detect(bpte, 12), ETK_FILE_BPTE);
  CHECK_EQ_INT(etk_file_kind_detect(etdump, 12), ETK_FILE_ETDUMP);
  CHECK_EQ_INT(etk_file_kind_detect(bare, 12), ETK_FILE_ETDUMP_UNPREFIXED);
  CHECK_EQ_INT(etk_file_kind_detect(zip, 12), ETK_FILE_ZIP);
  CHECK_EQ_INT(etk_file_kind_detect(npy, 8), ETK_FILE_NPY);
  CHECK_EQ_INT(etk_file_kind_detect(raw, 8), ETK_FILE_UNKNOWN);
  CHECK_EQ_INT(etk_file_kind_detect(NULL, 0), ETK_FILE_UNKNOWN);
  CHECK_EQ_INT(etk_file_kind_detect(pte, 3), ETK_FILE_UNKNOWN);
}

ETK_TEST(wrong_kind_says_what_and_where) {
  static const uint8_t pte[] = "\x10\0\0\0ET12eh00";
  static const uint8_t etdump[] = "\x40\0\0\0\x10\0\0\0ED00";
  static const uint8_t raw[] = "\x00\x00\x80\x3f\x00\x00\x80\x3f";
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_file_kind_expect("m.pte", pte, 12, ETK_FILE_ETDUMP, &err),
               ETK_E_BAD_IDENTIFIER);
  CHECK_EQ_STR(err.where, "m.pte");
  CHECK(strstr(err.message,
               "this is an ExecuTorch program (.pte), not an "
               "ETDump: a program goes to") != NULL);
  CHECK(strstr(err.message, "--program") != NULL);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_file_kind_expect(NULL, pte, 12, ETK_FILE_ZIP, &err),
               ETK_E_BAD_IDENTIFIER);
  CHECK(strstr(err.message, "not an ETRecord") != NULL);
  etk_error_clear(&err);
  CHECK_EQ_INT(
      etk_file_kind_expect(NULL, etdump, 12, ETK_FILE_DEBUG_BUFFER, &err),
      ETK_E_BAD_IDENTIFIER);
  CHECK(strstr(err.message,
               "this is an ETDump, not a debug buffer: an ETDump "
               "goes to --etdump_path") != NULL);
  /* the right kind, or bytes of no known kind: the reader's business */
  CHECK_EQ_INT(etk_file_kind_expect(NULL, pte, 12, ETK_FILE_PTE, NULL), ETK_OK);
  CHECK_EQ_INT(etk_file_kind_expect(NULL, raw, 8, ETK_FILE_ETDUMP, NULL),
               ETK_OK);
  CHECK_EQ_INT(etk_file_kind_expect(NULL, raw, 8, ETK_FILE_DEBUG_BUFFER, NULL),
               ETK_OK);
}

ETK_TEST(directories_and_empty_files) {
  const char *dir = etk_test_temp_path("kind_dir");
  mkdir(dir, 0700);
  CHECK_EQ_INT(etk_file_kind_of_path(dir), ETK_FILE_DIRECTORY);
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_file_kind_expect(dir, NULL, 0, ETK_FILE_ETDUMP, &err),
               ETK_E_IO);
  CHECK(strstr(err.message, "this is a directory, not an ETDump") != NULL);
  etk_error_clear(&err);
  uint8_t *data = NULL;
  size_t len = 0;
  CHECK_EQ_INT(etk_read_file(dir, 0, &data, &len, &err), ETK_E_IO);
  CHECK(strstr(err.message, "directory") != NULL);
  rmdir(dir);
  const char *empty = etk_test_temp_path("kind_empty");
  REQUIRE(etk_write_file(empty, "", 0, NULL) == ETK_OK);
  CHECK_EQ_INT(etk_file_kind_of_path(empty), ETK_FILE_EMPTY);
  remove(empty);
  CHECK_EQ_INT(etk_file_kind_of_path("/no/such/file"), ETK_FILE_UNKNOWN);
}

/* Lists of names in messages: whole names, then how many more (a method
 * list was cut mid-word). */
ETK_TEST(name_list_never_cuts_a_name) {
  char buf[48];
  etk_name_list_t l;
  etk_name_list_init(&l, buf, sizeof buf);
  CHECK_EQ_STR(etk_name_list_text(&l), "none");
  etk_name_list_init(&l, buf, sizeof buf);
  etk_name_list_add(&l, "forward", 7);
  etk_name_list_add(&l, "encode", 6);
  CHECK_EQ_STR(etk_name_list_text(&l), "forward, encode");
  etk_name_list_init(&l, buf, sizeof buf);
  static const char *const names[] = {"forward", "encode", "decode",
                                      "method_with_a_long_name", "x"};
  for (int i = 0; i < 5; i++) etk_name_list_add(&l, names[i], strlen(names[i]));
  CHECK_EQ_STR(etk_name_list_text(&l), "forward, encode and 3 more");
  CHECK(strlen(buf) < sizeof buf);
}

ETK_TEST_MAIN()
