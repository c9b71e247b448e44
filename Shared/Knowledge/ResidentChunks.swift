/// Chunks with their unit-length embeddings in one contiguous array, ranked by cosine similarity
/// exactly as `KnowledgeSearch`'s SQL ranks them (`embedding <=> query`, then id).
struct ResidentChunks: Sendable {
    let model: String
    let dimension: Int
    private(set) var hits: [SearchHit] = []
    private var allergenSets: [Set<String>] = []
    /// `hits.count × dimension` floats, each row scaled to unit length (all zeros for a zero vector).
    private var vectors: [Float] = []
    private var zeroVector: [Bool] = []
    private var positions: [String: Int] = [:]
    /// Per chunk, the number of its document and of its kind (in `documentIds`, `kindNames`): the
    /// scan compares integers, not strings.
    private var documentNumbers: [Int] = []
    private var documentIds: [String] = []
    private var documentNumberOf: [String: Int] = [:]
    private var kindNumbers: [Int] = []
    private var kindNames: [String] = []

    init(model: String, dimension: Int) {
        self.model = model
        self.dimension = dimension
    }

    var count: Int { hits.count }

    struct WrongDimension: Error, CustomStringConvertible {
        let chunkId: String
        let dimension: Int
        let expected: Int
        var description: String { "chunk \(chunkId) has \(dimension) dimensions, not \(expected)" }
    }

    mutating func append(_ hit: SearchHit, embedding: [Float]) throws {
        guard embedding.count == dimension else { throw WrongDimension(chunkId: hit.chunkId, dimension: embedding.count, expected: dimension) }
        positions[hit.chunkId] = hits.count
        hits.append(hit)
        allergenSets.append(Set(hit.allergens))
        let (unit, isZero) = Self.unitLength(embedding)
        vectors.append(contentsOf: unit)
        zeroVector.append(isZero)
        if let number = documentNumberOf[hit.documentId] {
            documentNumbers.append(number)
        } else {
            documentNumberOf[hit.documentId] = documentIds.count
            documentNumbers.append(documentIds.count)
            documentIds.append(hit.documentId)
        }
        if let number = kindNames.firstIndex(of: hit.kind) {
            kindNumbers.append(number)
        } else {
            kindNumbers.append(kindNames.count)
            kindNames.append(hit.kind)
        }
    }

    /// The chunk with this id, without a score.
    func hit(_ chunkId: String) -> SearchHit? {
        positions[chunkId].map { hits[$0] }
    }

    /// The `documents` documents nearest to `query` among the chunks the filters leave, each by
    /// its nearest chunk (score = cosine similarity), nearest first; equal distances by chunk id.
    func nearestDocuments(to query: [Float], kinds: [String], filters: SearchFilters, documents: Int) -> [RankedChunk] {
        guard documents > 0, query.count == dimension else { return [] }
        let (unit, queryIsZero) = Self.unitLength(query)
        let allowedKinds = kindNames.map { kinds.contains($0) }
        let excluded = Set(filters.excludeAllergens)
        // Per document, its nearest chunk so far (-1: none).
        var nearest = [Int](repeating: -1, count: documentIds.count)
        var distances = [Double](repeating: .infinity, count: hits.count)
        unit.withUnsafeBufferPointer { q in
            vectors.withUnsafeBufferPointer { all in
                for index in hits.indices {
                    guard allowedKinds[kindNumbers[index]],
                          excluded.isEmpty || excluded.isDisjoint(with: allergenSets[index]),
                          Self.admits(hits[index], age: filters.age) else { continue }
                    // pgvector's cosine distance of a zero vector is NaN, which Postgres orders last.
                    let distance = queryIsZero || zeroVector[index]
                        ? Double.infinity
                        : 1 - Double(Self.dot(q.baseAddress!, all.baseAddress! + index * dimension, count: dimension))
                    distances[index] = distance
                    let document = documentNumbers[index]
                    let known = nearest[document]
                    if known < 0 || isCloser(index, than: known, distances) { nearest[document] = index }
                }
            }
        }
        return nearest.filter { $0 >= 0 }
            .sorted { isCloser($0, than: $1, distances) }
            .prefix(documents)
            .map { RankedChunk(chunkId: hits[$0].chunkId, documentId: hits[$0].documentId, score: 1 - distances[$0]) }
    }

    /// SQL's `ORDER BY distance, id`.
    private func isCloser(_ chunk: Int, than other: Int, _ distances: [Double]) -> Bool {
        distances[chunk] != distances[other] ? distances[chunk] < distances[other] : hits[chunk].chunkId < hits[other].chunkId
    }

    /// The SQL filter's age clause: documents without a range match any age.
    static func admits(_ hit: SearchHit, age: Int?) -> Bool {
        guard let age else { return true }
        return (hit.ageMin.map { $0 <= age } ?? true) && (hit.ageMax.map { $0 >= age } ?? true)
    }

    static func unitLength(_ vector: [Float]) -> (unit: [Float], isZero: Bool) {
        var squares: Double = 0
        for value in vector { squares += Double(value) * Double(value) }
        guard squares > 0 else { return (vector, true) }
        let scale = Float(1 / squares.squareRoot())
        return (vector.map { $0 * scale }, false)
    }

    /// Sixteen lanes at a time: the scan is a few hundred of these per query. A multiply and an
    /// add, not `addProduct`: built without an FMA target, that calls libm's `fmaf` once per lane.
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var sum = SIMD16<Float>()
        var offset = 0
        while offset + 16 <= count {
            let x = UnsafeRawPointer(a + offset).loadUnaligned(as: SIMD16<Float>.self)
            let y = UnsafeRawPointer(b + offset).loadUnaligned(as: SIMD16<Float>.self)
            sum += x * y
            offset += 16
        }
        var total = sum.sum()
        while offset < count {
            total += a[offset] * b[offset]
            offset += 1
        }
        return total
    }
}
