package dev.parquetlookup.s3proxy;

import java.time.Duration;

/**
 * Owns the {@link LatencyProxy}'s counters of one measuring window: requests by method, bytes each
 * way, requests in flight (now, most, time-weighted mean) and the mean request time. Changed under
 * its own lock, a few thousand times per second at most.
 */
final class ProxyCounters {

    private long requests;
    private long gets;
    private long heads;
    private long puts;
    private long completed;
    private long requestBytes;
    private long responseBytes;
    private int inFlight;
    private int maxInFlight;
    private double inFlightArea; // sum of inFlight * nanos since windowStart
    private long lastChange;
    private long windowStart;
    private long requestNanos;
    private long accepted;

    ProxyCounters() {
        long now = System.nanoTime();
        this.windowStart = now;
        this.lastChange = now;
    }

    synchronized LatencyProxy.Stats stats(int openConnections) {
        long now = System.nanoTime();
        advance(now);
        long window = Math.max(1, now - windowStart);
        return new LatencyProxy.Stats(
                requests,
                gets,
                heads,
                puts,
                completed,
                requestBytes,
                responseBytes,
                inFlight,
                maxInFlight,
                inFlightArea / window,
                completed == 0 ? 0 : requestNanos / 1e6 / completed,
                Duration.ofNanos(window),
                accepted,
                openConnections);
    }

    /** A new window; requests in flight now stay in flight. */
    synchronized void reset() {
        long now = System.nanoTime();
        requests = 0;
        gets = 0;
        heads = 0;
        puts = 0;
        completed = 0;
        requestBytes = 0;
        responseBytes = 0;
        maxInFlight = inFlight;
        inFlightArea = 0;
        requestNanos = 0;
        accepted = 0;
        windowStart = now;
        lastChange = now;
    }

    private void advance(long now) {
        inFlightArea += (double) inFlight * (now - lastChange);
        lastChange = now;
    }

    synchronized void accepted() {
        accepted++;
    }

    synchronized void requestStarted(long now) {
        advance(now);
        requests++;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
    }

    synchronized void requestMethod(String method) {
        switch (method) {
            case "GET" -> gets++;
            case "HEAD" -> heads++;
            case "PUT", "POST" -> puts++;
            default -> {}
        }
    }

    synchronized void requestEnded(long now, long startedAt, boolean complete) {
        advance(now);
        inFlight--;
        if (complete) {
            completed++;
            requestNanos += now - Math.max(startedAt, windowStart);
        }
    }

    synchronized void forwarded(boolean toServer, int bytes) {
        if (toServer) {
            requestBytes += bytes;
        } else {
            responseBytes += bytes;
        }
    }
}
