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

    init(model: String, dimension: Int) {
        self.model = model
        self.dimension = dimension
    }

    var count: Int { hits.count }

    mutating func append(_ hit: SearchHit, embedding: [Float]) {
        precondition(embedding.count == dimension, "a chunk's embedding has \(embedding.count) dimensions, not \(dimension)")
        positions[hit.chunkId] = hits.count
        hits.append(hit)
        allergenSets.append(Set(hit.allergens))
        let (unit, isZero) = Self.unitLength(embedding)
        vectors.append(contentsOf: unit)
        zeroVector.append(isZero)
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
        let allowedKinds = Set(kinds)
        let excluded = Set(filters.excludeAllergens)
        var best: [String: (distance: Double, index: Int)] = [:]
        unit.withUnsafeBufferPointer { q in
            vectors.withUnsafeBufferPointer { all in
                for index in hits.indices {
                    let hit = hits[index]
                    guard allowedKinds.contains(hit.kind), excluded.isDisjoint(with: allergenSets[index]), Self.admits(hit, age: filters.age) else { continue }
                    // pgvector's cosine distance of a zero vector is NaN, which Postgres orders last.
                    let distance = queryIsZero || zeroVector[index]
                        ? Double.infinity
                        : 1 - Double(Self.dot(q.baseAddress!, all.baseAddress! + index * dimension, count: dimension))
                    if let known = best[hit.documentId],
                       known.distance < distance || (known.distance == distance && hits[known.index].chunkId < hit.chunkId) {
                        continue
                    }
                    best[hit.documentId] = (distance, index)
                }
            }
        }
        return best.values
            .sorted { $0.distance != $1.distance ? $0.distance < $1.distance : hits[$0.index].chunkId < hits[$1.index].chunkId }
            .prefix(documents)
            .map { RankedChunk(chunkId: hits[$0.index].chunkId, documentId: hits[$0.index].documentId, score: 1 - $0.distance) }
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

    /// Sixteen lanes at a time: the scan is a few hundred of these per query.
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var sum = SIMD16<Float>()
        var offset = 0
        while offset + 16 <= count {
            let x = UnsafeRawPointer(a + offset).loadUnaligned(as: SIMD16<Float>.self)
            let y = UnsafeRawPointer(b + offset).loadUnaligned(as: SIMD16<Float>.self)
            sum.addProduct(x, y)
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
