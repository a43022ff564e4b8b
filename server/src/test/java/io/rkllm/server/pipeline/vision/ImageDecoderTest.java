package io.rkllm.server.pipeline.vision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ImageDecoderTest {
    private final ImageDecoder decoder = new ImageDecoder(ImageDecoder.Limits.DEFAULT);

    @Test
    void pngComesBackPixelForPixel() {
        BufferedImage source = TestPictures.quadrants(40, 20, BufferedImage.TYPE_INT_RGB);
        BufferedImage decoded = decoder.decode(TestPictures.png(source), 448, 448);
        assertThat(decoded.getType()).isEqualTo(BufferedImage.TYPE_INT_RGB);
        assertThat(pixels(decoded)).isEqualTo(pixels(source));
    }

    @Test
    void webpDecodesToTheSamePixelsAsThePng() {
        BufferedImage webp = decoder.decode(TestPictures.webpQuadrants(), 448, 448);
        BufferedImage png = decoder.decode(TestPictures.png(TestPictures.quadrants(64, 32,
                BufferedImage.TYPE_INT_RGB)), 448, 448);
        assertThat(pixels(webp)).isEqualTo(pixels(png));
    }

    @Test
    void gifGivesItsFirstFrame() {
        BufferedImage decoded = decoder.decode(TestPictures.gif(TestPictures.solid(10, 6, Color.RED)), 448, 448);
        assertThat(decoded.getWidth()).isEqualTo(10);
        assertThat(decoded.getRGB(3, 3) & 0xFFFFFF).isEqualTo(0xFF0000);
    }

    @Test
    void exifOrientationTurnsThePhotoUpright() {
        // stored as a 64x32 landscape; orientation 6 says: turn a quarter clockwise for display
        byte[] jpeg = TestPictures.jpeg(TestPictures.quadrants(64, 32, BufferedImage.TYPE_INT_RGB));
        BufferedImage upright = decoder.decode(TestPictures.withOrientation(jpeg, 6), 448, 448);
        assertThat(upright.getWidth()).isEqualTo(32);
        assertThat(upright.getHeight()).isEqualTo(64);
        // the stored top left (red) is now the top right, the stored bottom left (green) the top left
        assertThat(near(upright.getRGB(24, 8), TestPictures.RED)).isTrue();
        assertThat(near(upright.getRGB(8, 8), TestPictures.GREEN)).isTrue();
        assertThat(near(upright.getRGB(24, 56), TestPictures.BLUE)).isTrue();
        assertThat(near(upright.getRGB(8, 56), TestPictures.WHITE)).isTrue();

        BufferedImage asStored = decoder.decode(jpeg, 448, 448);
        assertThat(asStored.getWidth()).isEqualTo(64);
        BufferedImage turnedBack = decoder.decode(TestPictures.withOrientation(jpeg, 8), 448, 448);
        assertThat(near(turnedBack.getRGB(8, 56), TestPictures.RED)).isTrue();
    }

    @Test
    void everyOrientationMapsTheCornersAsExifDefinesThem() {
        BufferedImage src = TestPictures.quadrants(4, 2, BufferedImage.TYPE_INT_RGB);
        // where the stored top-left pixel (red) ends up, per orientation: x, y in the displayed picture
        int[][] topLeft = {{0, 0}, {3, 0}, {3, 1}, {0, 1}, {0, 0}, {1, 0}, {1, 3}, {0, 3}};
        for (int o = 1; o <= 8; o++) {
            BufferedImage out = Orientation.apply(src, o);
            assertThat(out.getWidth()).as("orientation " + o).isEqualTo(o >= 5 ? 2 : 4);
            assertThat(out.getRGB(topLeft[o - 1][0], topLeft[o - 1][1]) & 0xFFFFFF).as("orientation " + o)
                    .isEqualTo(TestPictures.RED.getRGB() & 0xFFFFFF);
        }
    }

    @Test
    void greyPicturesKeepTheirValues() {
        BufferedImage grey = new BufferedImage(16, 16, BufferedImage.TYPE_BYTE_GRAY);
        grey.getRaster().setSample(5, 5, 0, 200);
        grey.getRaster().setSample(6, 5, 0, 40);
        BufferedImage decoded = decoder.decode(TestPictures.png(grey), 448, 448);
        assertThat(decoded.getRGB(5, 5) & 0xFFFFFF).isEqualTo(0xC8C8C8);
        assertThat(decoded.getRGB(6, 5) & 0xFFFFFF).isEqualTo(0x282828);
    }

    @Test
    void transparencyLiesOverWhite() {
        BufferedImage clear = new BufferedImage(4, 4, BufferedImage.TYPE_INT_ARGB);
        clear.setRGB(1, 1, 0xFF0000FF);
        BufferedImage decoded = decoder.decode(TestPictures.png(clear), 448, 448);
        assertThat(decoded.getRGB(0, 0) & 0xFFFFFF).isEqualTo(0xFFFFFF);
        assertThat(decoded.getRGB(1, 1) & 0xFFFFFF).isEqualTo(0x0000FF);
    }

    @Test
    void aBombIsRefusedFromItsHeader() {
        byte[] bomb = TestPictures.pngClaiming(100_000, 100_000);
        assertThat(bomb.length).isLessThan(200);
        assertThatThrownBy(() -> decoder.decode(bomb, 448, 448)).isInstanceOfSatisfying(ImageException.class, e -> {
            assertThat(e.code()).isEqualTo(ImageException.TOO_LARGE);
            assertThat(e.getMessage()).contains("100000x100000");
        });
        ImageDecoder small = new ImageDecoder(new ImageDecoder.Limits(1_000_000, 30_000));
        assertThatThrownBy(() -> small.decode(TestPictures.pngClaiming(2000, 1000), 448, 448))
                .isInstanceOfSatisfying(ImageException.class, e -> assertThat(e.code())
                        .isEqualTo(ImageException.TOO_LARGE));
    }

    @Test
    void largePicturesAreReadSubsampled() {
        assertThat(ImageDecoder.subsampling(4000, 3000, 448, 448)).isEqualTo(4);
        assertThat(ImageDecoder.subsampling(896, 896, 448, 448)).isEqualTo(1);
        assertThat(ImageDecoder.subsampling(100, 100, 448, 448)).isEqualTo(1);
        BufferedImage decoded = decoder.decode(TestPictures.png(TestPictures.quadrants(2000, 1000,
                BufferedImage.TYPE_INT_RGB)), 448, 448);
        assertThat(decoded.getWidth()).isEqualTo(1000);
        assertThat(near(decoded.getRGB(10, 10), TestPictures.RED)).isTrue();
    }

    @Test
    void brokenAndForeignBytesAreClearErrors() {
        byte[] png = TestPictures.png(TestPictures.quadrants(40, 20, BufferedImage.TYPE_INT_RGB));
        byte[] truncated = Arrays.copyOf(png, 40);
        assertThatThrownBy(() -> decoder.decode(truncated, 448, 448)).isInstanceOfSatisfying(ImageException.class,
                e -> assertThat(e.code()).isEqualTo(ImageException.INVALID));
        assertThatThrownBy(() -> decoder.decode("hello".getBytes(StandardCharsets.UTF_8), 448, 448))
                .isInstanceOfSatisfying(ImageException.class, e -> assertThat(e.code())
                        .isEqualTo(ImageException.UNSUPPORTED));
        byte[] heic = new byte[32];
        System.arraycopy("ftypheic".getBytes(StandardCharsets.ISO_8859_1), 0, heic, 4, 8);
        assertThatThrownBy(() -> decoder.decode(heic, 448, 448)).hasMessageContaining("HEIC");
    }

    @Test
    void fitLetterboxesOnGrey() {
        BufferedImage wide = TestPictures.solid(200, 100, Color.RED);
        BufferedImage fitted = ImageFit.fit(wide, 448, 448);
        assertThat(fitted.getWidth()).isEqualTo(448);
        assertThat(fitted.getRGB(224, 10) & 0xFFFFFF).isEqualTo(0x808080);
        assertThat(fitted.getRGB(224, 224) & 0xFFFFFF).isEqualTo(0xFF0000);
        assertThat(fitted.getRGB(224, 437) & 0xFFFFFF).isEqualTo(0x808080);
        byte[] rgb = ImageFit.rgb(wide, 448, 448);
        assertThat(rgb).hasSize(448 * 448 * 3);
        int centre = (224 * 448 + 224) * 3;
        assertThat(new int[] {rgb[centre] & 0xFF, rgb[centre + 1] & 0xFF, rgb[centre + 2] & 0xFF})
                .containsExactly(255, 0, 0);
        assertThat(ImageFit.rgb(wide, 448, 448)).isEqualTo(rgb);
    }

    static int[] pixels(BufferedImage image) {
        return image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
    }

    static boolean near(int rgb, Color expected) {
        Color c = new Color(rgb);
        return Math.abs(c.getRed() - expected.getRed()) < 12 && Math.abs(c.getGreen() - expected.getGreen()) < 12
                && Math.abs(c.getBlue() - expected.getBlue()) < 12;
    }
}
