package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.DeletedRows;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SeekableInputStream;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The row positions an Iceberg snapshot deletes from its data files: position-delete files
 * (Parquet, columns {@code file_path} and {@code pos}) and deletion vectors (v3, a blob in a Puffin
 * file). Each position-delete file is read once per listing, since one may cover many data files.
 *
 * <p>Example: {@code new IcebergDeletes(path, "iceberg snapshot 7", io, conf).rowsOf(dataFile,
 * task.deletes())}.
 */
final class IcebergDeletes {

    /** Only the two columns the spec fixes; a delete file may also hold the deleted row. */
    private static final String POSITIONS_SCHEMA =
            "message positions { required binary file_path (STRING); required int64 pos; }";

    private final String table;
    private final String version;
    private final FileIO io;
    private final Configuration conf;

    /** Position-delete file location -> data file location -> positions. */
    private final Map<String, Map<String, List<Long>>> positionFiles = new HashMap<>();

    IcebergDeletes(String table, String version, FileIO io, Configuration conf) {
        this.table = table;
        this.version = version;
        this.io = io;
        this.conf = new Configuration(conf);
        this.conf.set(ReadSupport.PARQUET_READ_SCHEMA, POSITIONS_SCHEMA);
    }

    /** The rows of {@code file} that {@code deletes} (position deletes or a vector) delete. */
    DeletedRows rowsOf(DataFile file, List<DeleteFile> deletes) {
        List<Long> positions = new ArrayList<>();
        for (DeleteFile delete : deletes) {
            try {
                if (delete.format() == FileFormat.PUFFIN) {
                    vector(delete).forEach(positions::add);
                } else if (delete.format() == FileFormat.PARQUET) {
                    positions.addAll(positionFile(delete).getOrDefault(file.location(), List.of()));
                } else {
                    throw new LookupFileException(
                            version
                                    + " of the Iceberg table at "
                                    + table
                                    + " has a position-delete file in "
                                    + delete.format()
                                    + " ("
                                    + delete.location()
                                    + "); only Parquet position deletes and deletion vectors"
                                    + " are read. Rewrite the position deletes"
                                    + " (rewrite_position_delete_files) with"
                                    + " 'write.delete.format.default' = 'parquet', or compact"
                                    + " the table.");
                }
            } catch (IOException | RuntimeException e) {
                if (e instanceof LookupFileException l) {
                    throw l;
                }
                throw new LookupFileException(
                        version
                                + " of the Iceberg table at "
                                + table
                                + ": cannot read the delete file "
                                + delete.location()
                                + " of "
                                + file.location()
                                + ": "
                                + ErrorClause.of(e)
                                + ". The version would return deleted rows without it, so it is"
                                + " not served; restore the file (or compact the table).",
                        e);
            }
        }
        return DeletedRows.of(positions.stream().mapToLong(Long::longValue).toArray());
    }

    private PositionDeleteIndex vector(DeleteFile delete) throws IOException {
        long offset = delete.contentOffset();
        long length = delete.contentSizeInBytes();
        byte[] bytes = new byte[Math.toIntExact(length)];
        try (SeekableInputStream in = io.newInputFile(delete.location()).newStream()) {
            in.seek(offset);
            int done = in.readNBytes(bytes, 0, bytes.length);
            if (done < bytes.length) {
                throw new IOException("unexpected end of file after " + done + " bytes");
            }
        }
        return PositionDeleteIndex.deserialize(bytes, delete);
    }

    private Map<String, List<Long>> positionFile(DeleteFile delete) throws IOException {
        Map<String, List<Long>> byFile = positionFiles.get(delete.location());
        if (byFile != null) {
            return byFile;
        }
        byFile = new HashMap<>();
        try (ParquetReader<Group> reader =
                ParquetReader.builder(new GroupReadSupport(), new Path(delete.location()))
                        .withConf(conf)
                        .build()) {
            for (Group row = reader.read(); row != null; row = reader.read()) {
                byFile.computeIfAbsent(row.getString("file_path", 0), k -> new ArrayList<>())
                        .add(row.getLong("pos", 0));
            }
        }
        positionFiles.put(delete.location(), byFile);
        return byFile;
    }
}
