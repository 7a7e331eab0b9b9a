package dev.parquetlookup.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.LookupPaintScale;
import org.jfree.chart.renderer.xy.XYBlockRenderer;
import org.jfree.chart.title.PaintScaleLegend;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.DefaultXYZDataset;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;

/** PNG charts rendered headless with JFreeChart. */
final class Charts {

    static {
        // Charts are drawn on servers and CI machines without a display.
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {}

    /**
     * A grouped bar chart; {@code log} puts the value axis on a log scale (throughputs of the peers
     * span five orders of magnitude).
     */
    static void bars(
            Path file, String title, String valueLabel, DefaultCategoryDataset data, boolean log)
            throws IOException {
        JFreeChart chart =
                ChartFactory.createBarChart(
                        title,
                        null,
                        valueLabel,
                        data,
                        PlotOrientation.VERTICAL,
                        true,
                        false,
                        false);
        CategoryPlot plot = chart.getCategoryPlot();
        if (log) {
            LogAxis axis = new LogAxis(valueLabel);
            axis.setSmallestValue(1);
            axis.setNumberFormatOverride(new java.text.DecimalFormat("#,##0.#"));
            plot.setRangeAxis(axis);
        }
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.GRAY);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1100, 600);
    }

    /** A heat map: x and y categories by index, z the value; labels name the indexes. */
    static void heatMap(
            Path file,
            String title,
            String xLabel,
            String[] xNames,
            String yLabel,
            String[] yNames,
            double[][] values)
            throws IOException {
        int n = xNames.length * yNames.length;
        double[] xs = new double[n];
        double[] ys = new double[n];
        double[] zs = new double[n];
        double max = 0;
        int i = 0;
        for (int x = 0; x < xNames.length; x++) {
            for (int y = 0; y < yNames.length; y++, i++) {
                xs[i] = x;
                ys[i] = y;
                zs[i] = values[x][y];
                max = Math.max(max, values[x][y]);
            }
        }
        DefaultXYZDataset data = new DefaultXYZDataset();
        data.addSeries("ops/s", new double[][] {xs, ys, zs});
        org.jfree.chart.axis.SymbolAxis xAxis = new org.jfree.chart.axis.SymbolAxis(xLabel, xNames);
        org.jfree.chart.axis.SymbolAxis yAxis = new org.jfree.chart.axis.SymbolAxis(yLabel, yNames);
        XYBlockRenderer renderer = new XYBlockRenderer();
        LookupPaintScale scale = new LookupPaintScale(0, Math.max(1, max) * 1.0001, Color.WHITE);
        for (int s = 0; s < 10; s++) {
            float f = s / 9f;
            scale.add(max * s / 10.0, new Color(1f - 0.8f * f, 1f - 0.5f * f, 1f - 0.1f * f));
        }
        renderer.setPaintScale(scale);
        XYPlot plot = new XYPlot(data, xAxis, yAxis, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        JFreeChart chart = new JFreeChart(title, plot);
        chart.removeLegend();
        NumberAxis scaleAxis = new NumberAxis("ops/s");
        PaintScaleLegend legend = new PaintScaleLegend(scale, scaleAxis);
        legend.setPosition(RectangleEdge.RIGHT);
        chart.addSubtitle(legend);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 600);
    }
}
