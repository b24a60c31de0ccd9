// Internal: the levels of a nested leaf's data pages. The column reader
// (column_reader.cc) calls these for a leaf read with keep_levels(): each
// page's repetition and definition levels are appended, one byte each, to
// the chunk's LevelBuffers, checked, and turned into the leaf's validity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pqfast/parquet.h"
#include "pqfast/status.h"
#include "parquet/read_buffer.h"

namespace pqfast::parquet::detail {

// A column chunk's levels (rep empty when max_rep is 0, def when max_def is 0).
struct LevelBuffers {
  ReadBuffer rep, def;
};

// What a data page's levels say.
struct PageLevels {
  size_t values_at = 0;  // v1: where the values start in the decompressed page
  int64_t records = 0;   // entries with repetition level 0 (records begun)
  size_t slots = 0;      // entries with def >= slot_def (the leaf's slots)
  size_t nonnull = 0;    // entries with def == max_def (values stored)
};

// Decodes the n levels of a page into `lv` at entry `at` (grown to hold
// them) and checks them: each below its maximum, and the chunk's first
// entry (at == 0) starting a record. v1: `page` is the decompressed page
// (levels, each stream after a 4-byte length for RLE); v2: `rep`/`def` are
// the level sections of the body.
Status page_levels_v1(const PageHeader& h, const ColumnDescriptor& d, const uint8_t* page, size_t len, size_t n,
                      LevelBuffers& lv, int64_t at, PageLevels* out, const std::string& where);
Status page_levels_v2(const ColumnDescriptor& d, const uint8_t* rep, size_t rep_len, const uint8_t* def,
                      size_t def_len, size_t n, LevelBuffers& lv, int64_t at, PageLevels* out,
                      const std::string& where);

// The leaf's slots among the page's entries (def >= slot_def) and their
// validity (def == max_def) appended to `validity` (when non-null) from bit
// `pos` on. Fills out->slots and out->nonnull. `masks`: scratch.
void leaf_slots(const uint8_t* def, size_t n, int slot_def, int max_def, ReadBuffer* validity, int64_t pos,
                PageLevels* out, std::vector<uint64_t>& masks);

}  // namespace pqfast::parquet::detail
