package dev.parquetlookup.io;

import org.apache.parquet.conf.HadoopParquetConfiguration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.util.HadoopStreams;
import org.apache.parquet.io.DelegatingPositionOutputStream;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.util.Map;

/**
 * Where Parquet files are written: a parquet-java {@link OutputFile} for any Hadoop URI or local
 * path, and the two parquet-java writer classes whose abstract methods take a Hadoop {@code
 * Configuration}, so that code outside {@code io} can write Parquet without importing Hadoop.
 *
 * <p>Local paths use {@link RawLocalFileSystem}, so no {@code .crc} side files appear. Example:
 *
 * <pre>{@code
 * try (ParquetOutputs.Target target = ParquetOutputs.create("/tmp/out.parquet", Map.of())) {
 *     ParquetWriter<Object[]> writer =
 *             ParquetOutputs.writerBuilder(target.outputFile(), mySupport).build();
 *     ...
 * }
 * }</pre>
 */
public final class ParquetOutputs {

    private ParquetOutputs() {}

    /**
     * A write target for {@code path} (a plain local path or any Hadoop URI), with a Hadoop
     * configuration made of the defaults plus {@code hadoopOptions}. Nothing is created until the
     * output file's {@code create} is called.
     */
    public static Target create(String path, Map<String, String> hadoopOptions) throws IOException {
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);
        Path p = new Path(path);
        URI uri = p.toUri();
        FileSystem fs;
        if ((uri.getScheme() == null || uri.getScheme().equals("file"))
                && conf.get("fs.file.impl") == null) {
            RawLocalFileSystem local = new RawLocalFileSystem();
            local.initialize(URI.create("file:///"), conf);
            fs = local;
        } else {
            fs = FileSystem.newInstance(uri, conf);
        }
        return new Target(fs, fs.makeQualified(p));
    }

    /**
     * A parquet-java writer builder for {@code file} that uses {@code writeSupport}; configure it
     * with the builder's {@code with...} methods and call {@code build()}.
     */
    public static <T> ParquetWriter.Builder<T, ?> writerBuilder(
            OutputFile file, WriteSupport<T> writeSupport) {
        return new SupportBuilder<>(file, writeSupport);
    }

    /** One file to write, and the file system that writes it (closed with this target). */
    public static final class Target implements Closeable {
        private final FileSystem fs;
        private final Path path;

        private Target(FileSystem fs, Path path) {
            this.fs = fs;
            this.path = path;
        }

        /** The fully qualified path, e.g. {@code file:/tmp/out.parquet}. */
        public String path() {
            return path.toString();
        }

        /** Whether something exists at the path. */
        public boolean exists() throws IOException {
            return fs.exists(path);
        }

        /** Removes the file, for example a partial file after a failed write. */
        public void delete() throws IOException {
            fs.delete(path, false);
        }

        /** Removes the path and, for a directory, everything below it. */
        public void deleteTree() throws IOException {
            fs.delete(path, true);
        }

        /**
         * Moves the file or directory to {@code destination} (a path on the same file system) by a
         * rename, the way {@code prepare} publishes finished files. Fails if the destination exists
         * or the file system refuses.
         */
        public void renameTo(String destination) throws IOException {
            Path to = fs.makeQualified(new Path(destination));
            if (fs.exists(to)) {
                throw new IOException("cannot move " + path + " to " + to + ": it exists");
            }
            fs.mkdirs(to.getParent());
            if (!fs.rename(path, to)) {
                throw new IOException("cannot move " + path + " to " + to + ": rename refused");
            }
        }

        /** The file as a parquet-java output; parent directories are created on demand. */
        public OutputFile outputFile() {
            return new OutputFile() {
                @Override
                public PositionOutputStream create(long blockSizeHint) throws IOException {
                    return new DiskErrors(HadoopStreams.wrap(fs.create(path, false)), path);
                }

                @Override
                public PositionOutputStream createOrOverwrite(long blockSizeHint)
                        throws IOException {
                    return new DiskErrors(HadoopStreams.wrap(fs.create(path, true)), path);
                }

                @Override
                public boolean supportsBlockSize() {
                    // No row-group padding to file-system blocks: sizes are chosen by row count.
                    return false;
                }

                @Override
                public long defaultBlockSize() {
                    return 0;
                }

                @Override
                public String getPath() {
                    return path.toString();
                }
            };
        }

        @Override
        public void close() throws IOException {
            fs.close();
        }
    }

    /**
     * Hadoop's local file system reports a failed write (a full disk) as {@link FSError}, an {@link
     * Error} that no {@code catch (IOException e)} sees: the writer's cleanup would be skipped and
     * a stack trace printed. Rethrown here as the {@link IOException} it wraps, naming the file.
     */
    private static final class DiskErrors extends DelegatingPositionOutputStream {
        private final PositionOutputStream out;
        private final Path path;

        DiskErrors(PositionOutputStream out, Path path) {
            super(out);
            this.out = out;
            this.path = path;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(byte[] b) throws IOException {
            write(b, 0, b.length);
        }

        @Override
        public void write(int b) throws IOException {
            try {
                super.write(b);
            } catch (FSError e) {
                throw failed(e);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                super.write(b, off, len);
            } catch (FSError e) {
                throw failed(e);
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                super.flush();
            } catch (FSError e) {
                throw failed(e);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } catch (FSError e) {
                throw failed(e);
            }
        }

        private IOException failed(FSError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return new IOException("Writing " + path + " failed: " + cause.getMessage(), cause);
        }
    }

    /**
     * A {@link WriteSupport} whose subclasses implement only the Hadoop-free {@link
     * #init(ParquetConfiguration)}.
     */
    public abstract static class WriteSupportBase<T> extends WriteSupport<T> {

        @Override
        public final WriteContext init(Configuration configuration) {
            return init(new HadoopParquetConfiguration(configuration));
        }

        @Override
        public abstract WriteContext init(ParquetConfiguration configuration);
    }

    private static final class SupportBuilder<T>
            extends ParquetWriter.Builder<T, SupportBuilder<T>> {
        private final WriteSupport<T> writeSupport;

        SupportBuilder(OutputFile file, WriteSupport<T> writeSupport) {
            super(file);
            this.writeSupport = writeSupport;
        }

        @Override
        protected SupportBuilder<T> self() {
            return this;
        }

        @Override
        protected WriteSupport<T> getWriteSupport(Configuration conf) {
            return writeSupport;
        }

        @Override
        protected WriteSupport<T> getWriteSupport(ParquetConfiguration conf) {
            return writeSupport;
        }
    }
}
