package dev.parquetlookup.tools;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Constructor;

/**
 * Hadoop's raw local file system on a disk that fills up: a {@code .parquet} file takes {@link
 * #ROOM} bytes, then every write fails the way Hadoop reports a full local disk, with its own
 * {@link FSError} wrapping "No space left on device". Used as {@code fs.file.impl}.
 */
public final class FullDiskFileSystem extends RawLocalFileSystem {

    static final int ROOM = 4096;

    @Override
    public FSDataOutputStream create(
            Path f,
            FsPermission permission,
            boolean overwrite,
            int bufferSize,
            short replication,
            long blockSize,
            Progressable progress)
            throws IOException {
        return filling(
                f,
                super.create(
                        f, permission, overwrite, bufferSize, replication, blockSize, progress));
    }

    @Override
    public FSDataOutputStream create(
            Path f,
            boolean overwrite,
            int bufferSize,
            short replication,
            long blockSize,
            Progressable progress)
            throws IOException {
        return filling(f, super.create(f, overwrite, bufferSize, replication, blockSize, progress));
    }

    private FSDataOutputStream filling(Path f, FSDataOutputStream real) throws IOException {
        if (!f.getName().endsWith(".parquet")) {
            return real;
        }
        return new FSDataOutputStream(new Filling(real), statistics);
    }

    private static final class Filling extends FilterOutputStream {
        private long written;

        Filling(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            room(1);
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            room(len);
            out.write(b, off, len);
        }

        private void room(int len) {
            written += len;
            if (written > ROOM) {
                throw fsError(new IOException("No space left on device"));
            }
        }
    }

    /** {@link FSError}'s constructor is package-private: Hadoop's local streams make it. */
    private static FSError fsError(IOException cause) {
        try {
            Constructor<FSError> c = FSError.class.getDeclaredConstructor(Throwable.class);
            c.setAccessible(true);
            return c.newInstance(cause);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
