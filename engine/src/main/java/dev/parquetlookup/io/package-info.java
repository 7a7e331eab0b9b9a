/** The only way bytes come in: positioned and vectored reads of file ranges. */
package dev.parquetlookup.io;
