package dev.parquetlookup.engine.source;

import java.util.Comparator;

/**
 * Orders names with digit runs compared as numbers, so snapshot directories sort by version: {@code
 * v9 < v10}, {@code 2026-1-9 < 2026-1-10}, and zero-padded or timestamp names keep their plain
 * order. Ties between equal numbers written differently ({@code 07} vs {@code 7}) fall back to
 * plain string order, so the order is total.
 */
final class NaturalOrder implements Comparator<String> {

    static final NaturalOrder INSTANCE = new NaturalOrder();

    private NaturalOrder() {}

    @Override
    public int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char ca = a.charAt(i);
            char cb = b.charAt(j);
            if (isDigit(ca) && isDigit(cb)) {
                int endA = digitsEnd(a, i);
                int endB = digitsEnd(b, j);
                int c = compareNumbers(a.substring(i, endA), b.substring(j, endB));
                if (c != 0) {
                    return c;
                }
                i = endA;
                j = endB;
            } else {
                if (ca != cb) {
                    return Character.compare(ca, cb);
                }
                i++;
                j++;
            }
        }
        int c = Integer.compare(a.length() - i, b.length() - j);
        return c != 0 ? c : a.compareTo(b);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static int digitsEnd(String s, int from) {
        int k = from;
        while (k < s.length() && isDigit(s.charAt(k))) {
            k++;
        }
        return k;
    }

    private static int compareNumbers(String x, String y) {
        String a = stripZeros(x);
        String b = stripZeros(y);
        int c = Integer.compare(a.length(), b.length());
        return c != 0 ? c : a.compareTo(b);
    }

    private static String stripZeros(String digits) {
        int k = 0;
        while (k < digits.length() - 1 && digits.charAt(k) == '0') {
            k++;
        }
        return digits.substring(k);
    }
}
