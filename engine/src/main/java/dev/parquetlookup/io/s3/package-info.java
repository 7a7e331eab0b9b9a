/**
 * The S3 store: ranged GETs of {@code s3a://} files through one client ({@link
 * dev.parquetlookup.io.s3.NettyS3RangeReader}), registered for the scheme {@code s3a} by {@link
 * dev.parquetlookup.io.s3.S3RangeReaderFactory}.
 */
package dev.parquetlookup.io.s3;
