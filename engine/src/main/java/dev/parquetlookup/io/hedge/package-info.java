/**
 * Hedged reads: a store's {@link dev.parquetlookup.io.AsyncRangeReader} wrapped so that a GET left
 * unanswered past a delay learnt from recent GETs is sent a second time ({@link
 * dev.parquetlookup.io.hedge.HedgedRangeReader}), within a budget of extra requests, counted in
 * {@link dev.parquetlookup.io.hedge.HedgeStatistics}.
 */
package dev.parquetlookup.io.hedge;
