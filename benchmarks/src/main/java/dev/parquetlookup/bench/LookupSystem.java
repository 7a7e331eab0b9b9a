package dev.parquetlookup.bench;

import javax.annotation.Nullable;

/**
 * One system under test in the {@code reader} suite: answers "v for key k" from the seed file.
 *
 * <p>A system is opened once per run; each measuring thread gets its own {@link Session} (for
 * systems whose handles are not thread-safe, e.g. a JDBC connection), created before the clock
 * starts.
 */
interface LookupSystem extends AutoCloseable {

    /** Name in RESULT lines, e.g. {@code duckdb}. */
    String name();

    /** Its configuration, stated in a NOTE line (the protocol asks for every peer's best). */
    String config();

    /** False for the floor, which reads and decompresses pages but decodes no answer. */
    default boolean answers() {
        return true;
    }

    /** A handle for one thread. */
    Session session() throws Exception;

    /** Bytes read from the file so far, or -1 when the system does not expose it. */
    default long bytesRead() {
        return -1;
    }

    /** Read requests so far, or -1 when unknown. */
    default long readRequests() {
        return -1;
    }

    /** Heap retained by the system after opening, in bytes, or -1 if not measured. */
    default long retainedHeapBytes() {
        return -1;
    }

    @Override
    default void close() throws Exception {}

    /** One thread's lookups. */
    interface Session extends AutoCloseable {
        /** v for k, or null when there is no such row. */
        @Nullable
        String lookup(long k) throws Exception;

        @Override
        default void close() throws Exception {}
    }

    /**
     * A system under another name, everything else forwarded to {@code inner}: two files' engines
     * share a case; a subclass may wrap the sessions.
     */
    class Renamed implements LookupSystem {
        final LookupSystem inner;
        private final String name;

        Renamed(LookupSystem inner, String name) {
            this.inner = inner;
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String config() {
            return inner.config();
        }

        @Override
        public boolean answers() {
            return inner.answers();
        }

        @Override
        public Session session() throws Exception {
            return inner.session();
        }

        @Override
        public long bytesRead() {
            return inner.bytesRead();
        }

        @Override
        public long readRequests() {
            return inner.readRequests();
        }

        @Override
        public void close() throws Exception {
            inner.close();
        }
    }
}
