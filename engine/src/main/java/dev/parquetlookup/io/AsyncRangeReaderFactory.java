package dev.parquetlookup.io;

import org.apache.hadoop.fs.FileSystem;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Makes the {@link AsyncRangeReader} of one object store, found by URI scheme with {@link
 * ServiceLoader} (as table formats are found): the {@link HadoopFileStore} lists and stats files
 * through the Hadoop file system of the scheme and reads every range of a remote file through the
 * reader of its scheme's factory; a scheme without one (HDFS, ...), or a file system whose settings
 * the reader does not support ({@link #unsupported}), is read through the file system's own
 * streams.
 *
 * <p>Adding a store is one package and one line: {@code dev.parquetlookup.io.s3} serves {@code
 * s3a://}; an Azure reader would be a package {@code dev.parquetlookup.io.abfs} with a factory for
 * {@code abfs} named in {@code META-INF/services/dev.parquetlookup.io.AsyncRangeReaderFactory}.
 * Implementations have a public no-argument constructor and touch their store's classes only in
 * {@link #unsupported} and {@link #create}, so a store whose library is absent costs nothing.
 */
public interface AsyncRangeReaderFactory {

    /** The URI scheme this factory's readers read, lower case ({@code "s3a"}). */
    String scheme();

    /**
     * Why the reader cannot read {@code fs}'s files, or null if it can: a setting only the file
     * system's own client applies (S3: SSE-C keys, requester pays, a proxy, access points), or the
     * reader turned off. Builds nothing; called once per file system, when its first file is
     * opened. A non-null answer is logged, and {@code fs}'s files are then read through its
     * streams.
     *
     * @throws IllegalArgumentException if an option of the store's is invalid or was removed (the
     *     message names the option and what to do)
     */
    @Nullable
    String unsupported(FileSystem fs);

    /**
     * Builds the reader of {@code fs}'s files (one for which {@link #unsupported} said null), on
     * the first read of one of them; it is shared by all of them and closed with the file store.
     */
    AsyncRangeReader create(FileSystem fs) throws IOException;

    /**
     * The factory for {@code scheme} among those on the class path of the engine or of the current
     * thread's context class loader, or null if there is none.
     */
    @Nullable
    static AsyncRangeReaderFactory forScheme(String scheme) {
        String wanted = scheme.toLowerCase(Locale.ROOT);
        Set<ClassLoader> loaders = new LinkedHashSet<>();
        loaders.add(AsyncRangeReaderFactory.class.getClassLoader());
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            loaders.add(context);
        }
        for (ClassLoader loader : loaders) {
            for (AsyncRangeReaderFactory f :
                    ServiceLoader.load(AsyncRangeReaderFactory.class, loader)) {
                if (f.scheme().equals(wanted)) {
                    return f;
                }
            }
        }
        return null;
    }
}
