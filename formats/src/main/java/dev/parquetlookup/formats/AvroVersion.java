package dev.parquetlookup.formats;

import dev.parquetlookup.metadata.LookupFileException;

import java.security.CodeSource;

/**
 * Checks, before an Iceberg table is read, that the Apache Avro on the class path is one Iceberg
 * 1.12 can run with (1.12 or later: it calls {@code LogicalTypes.timestampNanos()}). A Maven job
 * that declares {@code flink-avro} or {@code parquet-avro} before {@code parquet-lookup-formats}
 * gets their Avro 1.11 by Maven's mediation; without this check every Iceberg table then fails at
 * its first manifest with a bare {@code NoSuchMethodError}, after the job started. The SQL jar is
 * not affected: its Avro is relocated.
 *
 * <p>Example message: "Iceberg tables need Apache Avro 1.12 or later, but the class path has Avro
 * 1.11.4 (from avro-1.11.4.jar) ...".
 */
final class AvroVersion {

    /** The method Iceberg 1.12 calls that Avro 1.11 lacks. */
    static final String REQUIRED_METHOD = "timestampNanos";

    private AvroVersion() {}

    /**
     * Checks the Avro that iceberg-core links against. The class is named in code, not in a string,
     * so that the SQL jar's relocation of Avro applies to it too.
     */
    static void require() {
        Class<?> logicalTypes;
        try {
            logicalTypes = org.apache.avro.LogicalTypes.class;
        } catch (NoClassDefFoundError e) {
            throw new LookupFileException(
                    "Iceberg tables need Apache Avro 1.12 or later on the class path, and it has"
                            + " none. Add org.apache.avro:avro 1.12.2 (the connector's formats"
                            + " artifact brings it), or use the SQL jar, which contains it.",
                    e);
        }
        require(logicalTypes);
    }

    /**
     * Checks {@code logicalTypes}, Avro's {@code org.apache.avro.LogicalTypes} class as some class
     * loader loaded it.
     *
     * @throws LookupFileException naming the Avro version and jar found, and the fix
     */
    static void require(Class<?> logicalTypes) {
        try {
            logicalTypes.getMethod(REQUIRED_METHOD);
        } catch (NoSuchMethodException e) {
            throw new LookupFileException(
                    "Iceberg tables need Apache Avro 1.12 or later, but the class path has Avro "
                            + describe(logicalTypes)
                            + ", which Iceberg 1.12 cannot run with (it has no LogicalTypes."
                            + REQUIRED_METHOD
                            + "()). In a Maven job, declare dev.parquetlookup:parquet-lookup-formats"
                            + " before flink-avro or parquet-avro, or manage org.apache.avro:avro"
                            + " at 1.12.2 or later (docs/formats.md); on a Flink cluster, use the"
                            + " SQL jar, whose Avro is its own.",
                    e);
        }
    }

    /** The version and jar of the Avro that loaded {@code logicalTypes}, as far as known. */
    private static String describe(Class<?> logicalTypes) {
        Package p = logicalTypes.getPackage();
        String version = p == null ? null : p.getImplementationVersion();
        CodeSource source = logicalTypes.getProtectionDomain().getCodeSource();
        String jar =
                source == null || source.getLocation() == null
                        ? null
                        : source.getLocation().getPath();
        if (jar != null) {
            jar = jar.substring(jar.lastIndexOf('/') + 1);
        }
        return (version == null ? "of an older version" : version)
                + (jar == null || jar.isEmpty() ? "" : " (from " + jar + ")");
    }
}
