package com.hadoop.compression.lzo;

/**
 * The class name parquet-java looks up for LZO (hadoop-lzo's, GPL, not in Maven Central), backed by
 * aircompressor's pure-Java codec, which writes the same Hadoop block framing. Only on the test
 * class path, so that tests can write LZO Parquet files the way hadoop-lzo users do.
 */
public class LzoCodec extends io.airlift.compress.lzo.LzoCodec {}
