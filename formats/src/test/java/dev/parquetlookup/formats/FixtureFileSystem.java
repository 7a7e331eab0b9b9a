package dev.parquetlookup.formats;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

import java.io.File;
import java.io.IOException;
import java.net.URI;

/**
 * The local file system with one folder seen under a fixed name: {@value #ROOT}{@code /x} is {@code
 * <dir>/x}, where {@code dir} is the Hadoop option {@value #DIR}; every other path is itself. The
 * twin of the file system the {@code spark-tables} module writes the Spark-made Iceberg fixtures
 * through ({@code dev.parquetlookup.sparktables.FixtureFileSystem}): Iceberg records absolute
 * locations in its metadata, manifests and position delete files, so those tables name {@code
 * file:}{@value #ROOT}{@code /spark-iceberg/...}, and a table given this class as {@code
 * fs.file.impl} (with {@code fs.file.impl.disable.cache}, so that no other table in the JVM gets it
 * from Hadoop's cache) reads them from the test resources, wherever the repository is. A {@link
 * RawLocalFileSystem}, as the engine's own local file system, so its files are memory-mapped
 * through {@link #pathToFile} as any local table's are.
 */
public final class FixtureFileSystem extends RawLocalFileSystem {

    /** The fixed name of the mapped folder. */
    public static final String ROOT = "/parquet-lookup-fixtures";

    /** The Hadoop option naming the folder {@link #ROOT} stands for. */
    public static final String DIR = "parquet-lookup.fixtures.dir";

    private String dir;

    @Override
    public void initialize(URI uri, Configuration conf) throws IOException {
        super.initialize(uri, conf);
        dir = conf.get(DIR);
        if (dir == null) {
            throw new IOException("FixtureFileSystem needs the Hadoop option " + DIR);
        }
    }

    @Override
    public String getScheme() {
        return "file";
    }

    @Override
    public File pathToFile(Path path) {
        String p = super.pathToFile(path).getPath();
        if (p.equals(ROOT) || p.startsWith(ROOT + "/")) {
            return new File(dir + p.substring(ROOT.length()));
        }
        return new File(p);
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
        return named(super.getFileStatus(f));
    }

    @Override
    public FileStatus getFileLinkStatus(Path f) throws IOException {
        return named(super.getFileLinkStatus(f));
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        FileStatus[] all = super.listStatus(f);
        for (FileStatus s : all) {
            named(s);
        }
        return all;
    }

    /** {@code s} with its path under {@link #ROOT} again when it names a file in the folder. */
    private FileStatus named(FileStatus s) {
        String p = s.getPath().toUri().getPath();
        if (p.equals(dir) || p.startsWith(dir + "/")) {
            s.setPath(makeQualified(new Path(ROOT + p.substring(dir.length()))));
        }
        return s;
    }
}
