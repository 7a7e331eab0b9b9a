package dev.parquetlookup.tools;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.ParquetOutputs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * All-or-nothing output of {@code prepare}: files are written below a staging directory {@code
 * OUT/_prepare-<id>/} (a name readers skip, like every name starting with {@code _}) and moved into
 * {@code OUT} by renames only after every row is written. A failure before that removes the staging
 * directory, so {@code OUT} is as it was.
 *
 * <p>Publishing with {@code --overwrite} first moves the old Parquet files into the staging
 * directory, then renames the new ones into place, then deletes the staging directory with the old
 * files. If a rename fails midway, the moves done so far are undone.
 */
final class StagedOutput {

    private final String output;
    private final String staging;
    private final boolean outputExisted;
    private final Map<String, String> hadoop;

    private StagedOutput(String output, boolean outputExisted, Map<String, String> hadoop) {
        this.output = output.endsWith("/") ? output.substring(0, output.length() - 1) : output;
        this.staging = this.output + "/_prepare-" + UUID.randomUUID();
        this.outputExisted = outputExisted;
        this.hadoop = hadoop;
    }

    /**
     * Plans a staged write into {@code output}.
     *
     * @param outputExisted whether {@code output} existed before; if not, a failure removes it
     */
    static StagedOutput into(String output, boolean outputExisted, Map<String, String> hadoop) {
        return new StagedOutput(output, outputExisted, hadoop);
    }

    /** The directory the writer writes into. */
    String stagingDirectory() {
        return staging;
    }

    /**
     * Moves {@code written} (files in the staging directory) into the output directory, replacing
     * {@code replaced} (old files of the output directory).
     *
     * @return the published paths
     */
    List<String> publish(List<String> written, List<FileId> replaced) throws IOException {
        List<String[]> done = new ArrayList<>(); // {from, to}, to undo
        List<String> published = new ArrayList<>();
        try {
            for (int i = 0; i < replaced.size(); i++) {
                String from = replaced.get(i).path();
                String to = staging + "/_replaced/" + i + "-" + replaced.get(i).fileName();
                move(from, to);
                done.add(new String[] {from, to});
            }
            for (String from : written) {
                String to = output + "/" + from.substring(from.lastIndexOf('/') + 1);
                move(from, to);
                done.add(new String[] {from, to});
                published.add(to);
            }
        } catch (IOException | RuntimeException e) {
            for (int i = done.size() - 1; i >= 0; i--) {
                try {
                    move(done.get(i)[1], done.get(i)[0]);
                } catch (IOException | RuntimeException undo) {
                    e.addSuppressed(undo);
                }
            }
            throw e;
        }
        deleteStaging();
        return published;
    }

    /** Removes what was written; the output directory is as it was before. */
    void abandon() throws IOException {
        if (outputExisted) {
            deleteStaging();
        } else {
            try (ParquetOutputs.Target out = ParquetOutputs.create(output, hadoop)) {
                out.deleteTree();
            }
        }
    }

    private void deleteStaging() throws IOException {
        try (ParquetOutputs.Target dir = ParquetOutputs.create(staging, hadoop)) {
            dir.deleteTree();
        }
    }

    private void move(String from, String to) throws IOException {
        try (ParquetOutputs.Target source = ParquetOutputs.create(from, hadoop)) {
            source.renameTo(to);
        }
    }
}
