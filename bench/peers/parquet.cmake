# Arrow C++'s Bloom filter check on a Parquet file, for the differential tests
# of pqfast's pruning (tests/python/test_parquet.py runs it when built).
pqfast_arrow_peer(pqfast_peer_arrow_bloom ${CMAKE_CURRENT_LIST_DIR}/arrow_bloom_check.cc)
