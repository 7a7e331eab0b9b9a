package dev.parquetlookup.io;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FileIdTest {

    @Test
    void aNewEtagIsANewVersionButTheStatusIsNotPartOfTheIdentity() {
        FileStatus status =
                new FileStatus(10, false, 1, 1, 1, new Path("s3a://b/d/part-0.parquet"));
        FileId listed = new FileId("s3a://b/d/part-0.parquet", 10, 1, "\"e1\"", status);
        FileId again = new FileId("s3a://b/d/part-0.parquet", 10, 1, "\"e1\"", null);
        FileId overwritten = new FileId("s3a://b/d/part-0.parquet", 10, 1, "\"e2\"", status);

        assertThat(listed).isEqualTo(again).hasSameHashCodeAs(again);
        assertThat(listed).isNotEqualTo(overwritten);
        assertThat(new FileId("file:/d/p", 10, 1))
                .isEqualTo(new FileId("file:/d/p", 10, 1, null, null))
                .isNotEqualTo(new FileId("file:/d/p", 10, 2));
        assertThat(listed).hasToString("s3a://b/d/part-0.parquet");
    }
}
