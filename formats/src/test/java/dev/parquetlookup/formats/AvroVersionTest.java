package dev.parquetlookup.formats;

import dev.parquetlookup.metadata.LookupFileException;

import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link AvroVersion}: the Avro of the build passes; Avro 1.11.4 (the version {@code flink-avro}
 * brings, loaded from its real jar in a class loader of its own) is refused with its version, its
 * jar and the fix, where Iceberg would fail later with a bare {@code NoSuchMethodError}.
 */
class AvroVersionTest {

    @Test
    void theAvroOfTheBuildIsAccepted() {
        assertThatCode(AvroVersion::require).doesNotThrowAnyException();
    }

    @Test
    void avro111IsRefusedWithItsVersionJarAndTheFix() throws Exception {
        Path jar = Path.of(System.getProperty("old.avro.jar", "target/old-avro/avro-1.11.4.jar"));
        assertThat(jar).as("Avro 1.11.4, copied by the build").isRegularFile();
        try (URLClassLoader old =
                new URLClassLoader(
                        new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            Class<?> logicalTypes = Class.forName("org.apache.avro.LogicalTypes", false, old);
            assertThat(logicalTypes.getClassLoader()).isSameAs(old);
            assertThatThrownBy(() -> AvroVersion.require(logicalTypes))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessageContaining("need Apache Avro 1.12 or later")
                    .hasMessageContaining("1.11.4")
                    .hasMessageContaining("avro-1.11.4.jar")
                    .hasMessageContaining("declare dev.parquetlookup:parquet-lookup-formats")
                    .hasMessageContaining("org.apache.avro:avro at 1.12.2");
        }
        assertThat(Files.size(jar)).isPositive();
    }
}
