package dev.parquetlookup.tools;

import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code --hadoop key=value}: Hadoop settings such as {@code fs.s3a.endpoint}. */
final class HadoopOptionsMixin {

    @Option(
            names = "--hadoop",
            paramLabel = "KEY=VALUE",
            description =
                    "A Hadoop configuration entry for reading and writing, e.g."
                            + " --hadoop fs.s3a.endpoint=http://127.0.0.1:9000 (repeatable).")
    Map<String, String> options = new LinkedHashMap<>();
}
