import Foundation

extension ToolRunner {
    /// The text of a PDF as poppler's `pdftotext` lays it out: how the daycare import reads a
    /// sheet (and `hearthctl eval import` measures it the same way).
    public func pdfText(_ pdf: Data) async throws -> String {
        String(decoding: try await run("pdftotext", ["-layout", "{in}", "-"], input: pdf, inputExtension: "pdf").stdout, as: UTF8.self)
    }

    /// What `tesseract` reads in an image, taken as one block of text (a photo of a printed sheet).
    public func imageText(_ image: Data) async throws -> String {
        String(decoding: try await run("tesseract", ["{in}", "-", "--psm", "6"], input: image, inputExtension: "png").stdout, as: UTF8.self)
    }
}
