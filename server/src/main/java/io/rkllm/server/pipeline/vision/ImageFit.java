package io.rkllm.server.pipeline.vision;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferInt;

/**
 * Fits a picture to an image encoder's input as Rockchip's multimodal demo does ({@code expand2square} and a
 * linear resize): scaled to fit whole, centred, the rest filled with middle grey, as RGB bytes row after row
 * (NHWC), which is what the encoder takes. Large reductions go by halves (each a 2x2 average) before the last
 * bilinear step, so that fine detail does not alias.
 */
public final class ImageFit {
    /** The demo pads with 127.5, which OpenCV rounds to 128. */
    static final int PAD = 128;

    private ImageFit() {
    }

    public static byte[] rgb(BufferedImage picture, int width, int height) {
        BufferedImage canvas = fit(picture, width, height);
        int[] pixels = ((DataBufferInt) canvas.getRaster().getDataBuffer()).getData();
        byte[] rgb = new byte[width * height * 3];
        for (int i = 0; i < pixels.length; i++) {
            int p = pixels[i];
            rgb[3 * i] = (byte) (p >>> 16);
            rgb[3 * i + 1] = (byte) (p >>> 8);
            rgb[3 * i + 2] = (byte) p;
        }
        return rgb;
    }

    /** The picture scaled into {@code width x height}, centred on grey (TYPE_INT_RGB). */
    static BufferedImage fit(BufferedImage picture, int width, int height) {
        BufferedImage src = ImageDecoder.toRgb(picture);
        double scale = Math.min((double) width / src.getWidth(), (double) height / src.getHeight());
        int sw = Math.clamp(Math.round(src.getWidth() * scale), 1, width);
        int sh = Math.clamp(Math.round(src.getHeight() * scale), 1, height);
        BufferedImage current = src;
        while (current.getWidth() / 2 >= sw && current.getHeight() / 2 >= sh) {
            current = scaled(current, current.getWidth() / 2, current.getHeight() / 2);
        }
        if (current.getWidth() != sw || current.getHeight() != sh) {
            current = scaled(current, sw, sh);
        }
        BufferedImage canvas = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = canvas.createGraphics();
        try {
            g.setColor(new Color(PAD, PAD, PAD));
            g.fillRect(0, 0, width, height);
            g.drawImage(current, (width - sw) / 2, (height - sh) / 2, null);
        } finally {
            g.dispose();
        }
        return canvas;
    }

    private static BufferedImage scaled(BufferedImage src, int w, int h) {
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
            g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
            g.drawImage(src, 0, 0, w, h, null);
        } finally {
            g.dispose();
        }
        return out;
    }
}
